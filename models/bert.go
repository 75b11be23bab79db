package models

import "github.com/xrl-dev/xrl/graph"

// BERTConfig sizes a BERT encoder.
type BERTConfig struct {
	Batch  int // sequences per inference
	Seq    int // tokens per sequence
	Hidden int // hidden width
	Layers int // encoder layers
	Heads  int // attention heads (must divide Hidden)
	MLP    int // feed-forward width
	Seed   uint64
}

func (c *BERTConfig) knobs() map[string]*int {
	return map[string]*int{"batch": &c.Batch, "seq": &c.Seq, "hidden": &c.Hidden, "layers": &c.Layers, "heads": &c.Heads}
}

func (c *BERTConfig) followHidden(old int) { c.MLP = scaleWidth(c.MLP, c.Hidden, old) }

func (c *BERTConfig) build() (*graph.Graph, error) { return BERT(*c) }

// BERT builds the encoder of Devlin et al. 2019 ("BERT: Pre-training of
// Deep Bidirectional Transformers for Language Understanding"): the input
// is the sum of token, position and segment embeddings [Batch, Seq,
// Hidden] (the table look-ups stay outside the graph, as in TASO's
// benchmark), followed by the embedding LayerNorm and Layers post-norm
// layers of multi-head self-attention and a GELU (erf form) MLP, each with
// residual and LayerNorm (epsilon 1e-12). The output is the final hidden
// state [Batch, Seq, Hidden]. Unlike TASO's script, every layer feeds the
// attention result on.
func BERT(c BERTConfig) (*graph.Graph, error) {
	if err := checkTransformer(c.Batch, c.Seq, c.Hidden, c.Layers, c.Heads, c.MLP); err != nil {
		return nil, err
	}
	n := newNet("bert", c.Seed)
	x := n.layerNorm("embeddings/ln", n.input("embeddings", c.Batch, c.Seq, c.Hidden), 1e-12)
	for i := range c.Layers {
		leave := n.enter("layer%d", i)
		x = n.postLNLayer(x, c.Heads, c.MLP, "gelu", 1e-12)
		leave()
	}
	return n.finish(named{"hidden_states", x})
}

// checkTransformer validates the sizes shared by the transformer models.
func checkTransformer(batch, seq, hidden, layers, heads, mlp int) error {
	if err := positive("batch", batch, "seq", seq, "hidden", hidden, "layers", layers, "heads", heads, "mlp", mlp); err != nil {
		return err
	}
	return divisible("hidden", hidden, "heads", heads)
}

// scaleWidth rescales a derived width in proportion to a new hidden size.
func scaleWidth(width, hidden, oldHidden int) int {
	if oldHidden <= 0 {
		return width
	}
	return max(1, (width*hidden+oldHidden/2)/oldHidden)
}

func init() {
	register("bert", "BERT encoder (Devlin et al. 2019), post-norm layers with real multi-head attention and GELU MLP; TASO benchmark sizes",
		func() config {
			// FACTS §2: TASO/X-RLflow BERT: seq 64 x batch 16, hidden 1024, 8 layers, 16 heads; MLP 4x hidden.
			return &BERTConfig{Batch: 16, Seq: 64, Hidden: 1024, Layers: 8, Heads: 16, MLP: 4096, Seed: 1}
		},
		func() config {
			return &BERTConfig{Batch: 8, Seq: 64, Hidden: 256, Layers: 2, Heads: 4, MLP: 1024, Seed: 1}
		})
}
