package models

import "github.com/xrl-dev/xrl/graph"

// ViTConfig sizes a Vision Transformer classifier.
type ViTConfig struct {
	Batch   int // images per inference
	Image   int // input height and width (a multiple of Patch)
	Patch   int // patch side in pixels
	Hidden  int // hidden width
	Layers  int // encoder layers
	Heads   int // attention heads (must divide Hidden)
	MLP     int // feed-forward width
	Classes int // classifier outputs
	Seed    uint64
}

func (c *ViTConfig) knobs() map[string]*int {
	return map[string]*int{"batch": &c.Batch, "image": &c.Image, "hidden": &c.Hidden, "layers": &c.Layers, "heads": &c.Heads, "classes": &c.Classes}
}

func (c *ViTConfig) followHidden(old int) { c.MLP = scaleWidth(c.MLP, c.Hidden, old) }

func (c *ViTConfig) build() (*graph.Graph, error) { return ViT(*c) }

// ViT builds the Vision Transformer of Dosovitskiy et al. 2021 ("An Image
// is Worth 16x16 Words"): a stride-Patch convolution embeds the patches,
// which are flattened to tokens; a learned class token (Expand to the
// batch) is prepended and learned position embeddings added; Layers
// pre-norm encoder layers (LayerNorm epsilon 1e-6, GELU MLP) follow; the
// final LayerNorm's class-token row (Gather) feeds a linear classifier
// (Gemm). Input [Batch, 3, Image, Image]; output logits [Batch, Classes].
func ViT(c ViTConfig) (*graph.Graph, error) {
	if err := checkTransformer(c.Batch, c.Image, c.Hidden, c.Layers, c.Heads, c.MLP); err != nil {
		return nil, err
	}
	if err := positive("patch", c.Patch, "classes", c.Classes); err != nil {
		return nil, err
	}
	if err := divisible("image", c.Image, "patch", c.Patch); err != nil {
		return nil, err
	}
	grid := c.Image / c.Patch
	tokens := grid*grid + 1
	n := newNet("vit", c.Seed)
	img := n.input("image", c.Batch, 3, c.Image, c.Image)
	leave := n.enter("embeddings")
	x := n.conv("patch", img, convSpec{out: c.Hidden, kh: c.Patch, kw: c.Patch, stride: c.Patch, group: 1, bias: true, gain: 1})
	x = n.transpose(n.reshape(x, c.Batch, c.Hidden, grid*grid), 0, 2, 1)
	cls := n.op("Expand", nil, n.normal("cls_token", 0, 0.02, 1, 1, c.Hidden), n.int64s(c.Batch, 1, c.Hidden))
	x = n.concat(1, cls, x)
	x = n.add(x, n.normal("position", 0, 0.02, 1, tokens, c.Hidden))
	leave()
	x = n.preLNStack(x, c.Layers, c.Heads, c.MLP, "gelu", 1e-6, nil)
	cls = n.op("Gather", graph.Attrs{"axis": graph.IntAttr(1)}, x, n.index(0))
	return n.finish(named{"logits", n.dense("head", cls, c.Classes)})
}

func init() {
	register("vit", "Vision Transformer ViT-Base (Dosovitskiy et al. 2021); X-RLflow benchmark sizes (64 patches of 16x16)",
		func() config {
			// FACTS §2: ViT-Base 64 patches (128x128 image, patch 16), hidden 768, 12 layers, 12 heads, MLP 3072.
			return &ViTConfig{Batch: 1, Image: 128, Patch: 16, Hidden: 768, Layers: 12, Heads: 12, MLP: 3072, Classes: 1000, Seed: 1}
		},
		func() config {
			return &ViTConfig{Batch: 4, Image: 128, Patch: 16, Hidden: 384, Layers: 2, Heads: 6, MLP: 1536, Classes: 1000, Seed: 1}
		})
}
