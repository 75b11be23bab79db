package models

import "github.com/xrl-dev/xrl/graph"

// DALLEConfig sizes a mini DALL-E decoder.
type DALLEConfig struct {
	Batch  int // samples per inference
	Text   int // text tokens
	Grid   int // side of the image-token grid (Grid*Grid image tokens)
	Hidden int // hidden width
	Layers int // decoder layers
	Heads  int // attention heads (must divide Hidden)
	MLP    int // feed-forward width
	Vocab  int // image-codebook entries predicted per position
	Seed   uint64
}

func (c *DALLEConfig) knobs() map[string]*int {
	return map[string]*int{"batch": &c.Batch, "seq": &c.Text, "image": &c.Grid, "hidden": &c.Hidden, "layers": &c.Layers, "heads": &c.Heads}
}

func (c *DALLEConfig) followHidden(old int) { c.MLP = scaleWidth(c.MLP, c.Hidden, old) }

func (c *DALLEConfig) build() (*graph.Graph, error) { return DALLE(*c) }

// DALLE builds a small version of the decoder-only transformer of Ramesh
// et al. 2021 ("Zero-Shot Text-to-Image Generation"): text-token and
// image-token embeddings ([Batch, Text, Hidden] and [Batch, Grid*Grid,
// Hidden]; the table look-ups stay outside the graph) are concatenated
// into one stream, learned position embeddings are added, and Layers
// pre-norm layers of causally masked multi-head self-attention (dense
// causal mask in place of the paper's sparse row/column masks) and GELU
// MLP follow; a final LayerNorm and linear head give logits over the image
// codebook for every position [Batch, Text+Grid*Grid, Vocab].
func DALLE(c DALLEConfig) (*graph.Graph, error) {
	if err := checkTransformer(c.Batch, c.Text, c.Hidden, c.Layers, c.Heads, c.MLP); err != nil {
		return nil, err
	}
	if err := positive("grid", c.Grid, "vocab", c.Vocab); err != nil {
		return nil, err
	}
	seq := c.Text + c.Grid*c.Grid
	n := newNet("dalle", c.Seed)
	text := n.input("text_embeddings", c.Batch, c.Text, c.Hidden)
	img := n.input("image_embeddings", c.Batch, c.Grid*c.Grid, c.Hidden)
	x := n.add(n.concat(1, text, img), n.normal("position", 0, 0.02, 1, seq, c.Hidden))
	mask := n.causalMask(seq)
	x = n.preLNStack(x, c.Layers, c.Heads, c.MLP, "gelu", 1e-5, mask)
	return n.finish(named{"logits", n.linear("head", x, c.Vocab, 1, true)})
}

func init() {
	register("dalle", "mini DALL-E (Ramesh et al. 2021): decoder-only causal transformer over text + image tokens; X-RLflow benchmark sizes",
		func() config {
			// FACTS §2: mini-DALL-E text 16, hidden 768, 8 layers, 12 heads, MLP 2048.
			// Our choices: an 8x8 image-token grid and the 8192-entry dVAE codebook of the paper.
			return &DALLEConfig{Batch: 1, Text: 16, Grid: 8, Hidden: 768, Layers: 8, Heads: 12, MLP: 2048, Vocab: 8192, Seed: 1}
		},
		func() config {
			return &DALLEConfig{Batch: 3, Text: 16, Grid: 8, Hidden: 384, Layers: 2, Heads: 6, MLP: 1024, Vocab: 2048, Seed: 1}
		})
}
