package models

import "github.com/xrl-dev/xrl/graph"

// TransducerConfig sizes a Transformer-Transducer.
type TransducerConfig struct {
	Batch       int // utterances per inference
	Frames      int // audio frames (encoder time steps)
	Labels      int // previous labels fed to the label encoder
	Features    int // features per audio frame (log-mel channels)
	Hidden      int // model width of both encoders
	AudioLayers int // audio-encoder layers
	LabelLayers int // label-encoder layers
	Heads       int // attention heads (must divide Hidden)
	MLP         int // feed-forward width
	Joint       int // joint-network width
	Vocab       int // output labels
	Seed        uint64
}

func (c *TransducerConfig) knobs() map[string]*int {
	return map[string]*int{"batch": &c.Batch, "seq": &c.Frames, "hidden": &c.Hidden, "layers": &c.AudioLayers, "heads": &c.Heads}
}

func (c *TransducerConfig) followHidden(old int) {
	c.MLP = scaleWidth(c.MLP, c.Hidden, old)
	c.Joint = scaleWidth(c.Joint, c.Hidden, old)
}

func (c *TransducerConfig) build() (*graph.Graph, error) { return Transducer(*c) }

// Transducer builds the Transformer-Transducer of Zhang et al. 2020
// ("Transformer Transducer: A Streamable Speech Recognition Model with
// Transformer Encoders and RNN-T Loss"): an audio encoder (linear input
// projection of the frames [Batch, Frames, Features], AudioLayers pre-norm
// full-context transformer layers with ReLU MLP, final LayerNorm), a label
// encoder over the embeddings of the previous labels [Batch, Labels,
// Hidden] (LabelLayers causally masked layers, final LayerNorm), and the
// RNN-T joint network: both encodings are projected to Joint, broadcast to
// the [Batch, Frames, Labels, Joint] lattice and added, then Tanh and a
// linear layer give logits [Batch, Frames, Labels, Vocab]. Relative
// position encodings of the paper are left out.
func Transducer(c TransducerConfig) (*graph.Graph, error) {
	if err := checkTransformer(c.Batch, c.Frames, c.Hidden, c.AudioLayers, c.Heads, c.MLP); err != nil {
		return nil, err
	}
	if err := positive("labels", c.Labels, "features", c.Features, "label layers", c.LabelLayers, "joint", c.Joint, "vocab", c.Vocab); err != nil {
		return nil, err
	}
	n := newNet("transducer", c.Seed)
	audio := n.input("audio_features", c.Batch, c.Frames, c.Features)
	labels := n.input("label_embeddings", c.Batch, c.Labels, c.Hidden)

	leave := n.enter("audio")
	a := n.linear("input", audio, c.Hidden, 1, true)
	a = n.preLNStack(a, c.AudioLayers, c.Heads, c.MLP, "relu", 1e-5, nil)
	leave()

	leave = n.enter("label")
	mask := n.causalMask(c.Labels)
	u := n.preLNStack(labels, c.LabelLayers, c.Heads, c.MLP, "relu", 1e-5, mask)
	leave()

	leave = n.enter("joint")
	a = n.reshape(n.linear("audio", a, c.Joint, 1, true), c.Batch, c.Frames, 1, c.Joint)
	u = n.reshape(n.linear("label", u, c.Joint, 1, false), c.Batch, 1, c.Labels, c.Joint)
	j := n.tanh(n.add(a, u))
	out := n.linear("output", j, c.Vocab, 1, true)
	leave()
	return n.finish(named{"logits", out})
}

func init() {
	register("transducer", "Transformer-Transducer (Zhang et al. 2020): audio and label transformer encoders and an RNN-T joint network; X-RLflow benchmark sizes",
		func() config {
			// FACTS §2: seq 80, dim 512, 12 audio + 2 label layers, 8 heads, MLP 2048, vocab 10.
			// Our choices: 16 previous labels, 128 features per frame, joint width 512.
			return &TransducerConfig{Batch: 1, Frames: 80, Labels: 16, Features: 128, Hidden: 512,
				AudioLayers: 12, LabelLayers: 2, Heads: 8, MLP: 2048, Joint: 512, Vocab: 10, Seed: 1}
		},
		func() config {
			return &TransducerConfig{Batch: 6, Frames: 80, Labels: 16, Features: 128, Hidden: 256,
				AudioLayers: 2, LabelLayers: 2, Heads: 4, MLP: 1024, Joint: 256, Vocab: 10, Seed: 1}
		})
}
