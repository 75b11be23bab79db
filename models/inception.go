package models

import "github.com/xrl-dev/xrl/graph"

// InceptionV3 builds Inception-v3 of Szegedy et al. 2016 ("Rethinking the
// Inception Architecture for Computer Vision") in torchvision's layout
// without the training-only auxiliary head: every convolution is
// bias-free with BatchNorm (epsilon 1e-3) and ReLU; a stem of five
// convolutions and two 3x3/2 max pools; three Inception-A modules (1x1,
// 5x5, double 3x3 and pool branches), grid reduction B, four Inception-C
// modules with factorised 1x7/7x1 convolutions (7x7 widths 128, 160, 160,
// 192), grid reduction D, two Inception-E modules with split 1x3/3x1
// branches; global average pool and a linear classifier. Average pools
// count padding, as in PyTorch. Input [Batch, 3, Image, Image] (Image at
// least 75); logits [Batch, Classes].
func InceptionV3(c CNNConfig) (*graph.Graph, error) {
	if err := c.check(75); err != nil {
		return nil, err
	}
	n := newNet("inceptionv3", c.Seed)
	x := n.input("image", c.Batch, 3, c.Image, c.Image)
	x = n.bconv("Conv2d_1a_3x3", x, sq(32, 3, 2, 0))
	x = n.bconv("Conv2d_2a_3x3", x, sq(32, 3, 1, 0))
	x = n.bconv("Conv2d_2b_3x3", x, sq(64, 3, 1, 1))
	x = n.maxPool(x, 3, 2, 0, false)
	x = n.bconv("Conv2d_3b_1x1", x, sq(80, 1, 1, 0))
	x = n.bconv("Conv2d_4a_3x3", x, sq(192, 3, 1, 0))
	x = n.maxPool(x, 3, 2, 0, false)
	x = n.inceptionA("Mixed_5b", x, 32)
	x = n.inceptionA("Mixed_5c", x, 64)
	x = n.inceptionA("Mixed_5d", x, 64)
	x = n.inceptionB("Mixed_6a", x)
	x = n.inceptionC("Mixed_6b", x, 128)
	x = n.inceptionC("Mixed_6c", x, 160)
	x = n.inceptionC("Mixed_6d", x, 160)
	x = n.inceptionC("Mixed_6e", x, 192)
	x = n.inceptionD("Mixed_7a", x)
	x = n.inceptionE("Mixed_7b", x)
	x = n.inceptionE("Mixed_7c", x)
	return n.finish(named{"logits", n.dense("fc", n.globalPool(x), c.Classes)})
}

// bconv is Inception's BasicConv2d: convolution, BatchNorm, ReLU.
func (n *net) bconv(name string, x *graph.Value, c convSpec) *graph.Value {
	return n.convBNReLU(name, x, c, 1e-3)
}

// poolBranch is a 3x3/1 average pool (padding counted) and a 1x1 conv.
func (n *net) poolBranch(x *graph.Value, out int) *graph.Value {
	return n.bconv("branch_pool", n.avgPool(x, 3, 1, 1, true), sq(out, 1, 1, 0))
}

func (n *net) inceptionA(name string, x *graph.Value, poolFeatures int) *graph.Value {
	defer n.enter("%s", name)()
	b1 := n.bconv("branch1x1", x, sq(64, 1, 1, 0))
	b5 := n.bconv("branch5x5_2", n.bconv("branch5x5_1", x, sq(48, 1, 1, 0)), sq(64, 5, 1, 2))
	b3 := n.bconv("branch3x3dbl_1", x, sq(64, 1, 1, 0))
	b3 = n.bconv("branch3x3dbl_2", b3, sq(96, 3, 1, 1))
	b3 = n.bconv("branch3x3dbl_3", b3, sq(96, 3, 1, 1))
	return n.concat(1, b1, b5, b3, n.poolBranch(x, poolFeatures))
}

func (n *net) inceptionB(name string, x *graph.Value) *graph.Value {
	defer n.enter("%s", name)()
	b3 := n.bconv("branch3x3", x, sq(384, 3, 2, 0))
	d := n.bconv("branch3x3dbl_1", x, sq(64, 1, 1, 0))
	d = n.bconv("branch3x3dbl_2", d, sq(96, 3, 1, 1))
	d = n.bconv("branch3x3dbl_3", d, sq(96, 3, 2, 0))
	return n.concat(1, b3, d, n.maxPool(x, 3, 2, 0, false))
}

func (n *net) inceptionC(name string, x *graph.Value, c7 int) *graph.Value {
	defer n.enter("%s", name)()
	b1 := n.bconv("branch1x1", x, sq(192, 1, 1, 0))
	b7 := n.bconv("branch7x7_1", x, sq(c7, 1, 1, 0))
	b7 = n.bconv("branch7x7_2", b7, rect(c7, 1, 7, 0, 3))
	b7 = n.bconv("branch7x7_3", b7, rect(192, 7, 1, 3, 0))
	d := n.bconv("branch7x7dbl_1", x, sq(c7, 1, 1, 0))
	d = n.bconv("branch7x7dbl_2", d, rect(c7, 7, 1, 3, 0))
	d = n.bconv("branch7x7dbl_3", d, rect(c7, 1, 7, 0, 3))
	d = n.bconv("branch7x7dbl_4", d, rect(c7, 7, 1, 3, 0))
	d = n.bconv("branch7x7dbl_5", d, rect(192, 1, 7, 0, 3))
	return n.concat(1, b1, b7, d, n.poolBranch(x, 192))
}

func (n *net) inceptionD(name string, x *graph.Value) *graph.Value {
	defer n.enter("%s", name)()
	b3 := n.bconv("branch3x3_2", n.bconv("branch3x3_1", x, sq(192, 1, 1, 0)), sq(320, 3, 2, 0))
	b7 := n.bconv("branch7x7x3_1", x, sq(192, 1, 1, 0))
	b7 = n.bconv("branch7x7x3_2", b7, rect(192, 1, 7, 0, 3))
	b7 = n.bconv("branch7x7x3_3", b7, rect(192, 7, 1, 3, 0))
	b7 = n.bconv("branch7x7x3_4", b7, sq(192, 3, 2, 0))
	return n.concat(1, b3, b7, n.maxPool(x, 3, 2, 0, false))
}

func (n *net) inceptionE(name string, x *graph.Value) *graph.Value {
	defer n.enter("%s", name)()
	b1 := n.bconv("branch1x1", x, sq(320, 1, 1, 0))
	b3 := n.bconv("branch3x3_1", x, sq(384, 1, 1, 0))
	b3 = n.concat(1,
		n.bconv("branch3x3_2a", b3, rect(384, 1, 3, 0, 1)),
		n.bconv("branch3x3_2b", b3, rect(384, 3, 1, 1, 0)))
	d := n.bconv("branch3x3dbl_1", x, sq(448, 1, 1, 0))
	d = n.bconv("branch3x3dbl_2", d, sq(384, 3, 1, 1))
	d = n.concat(1,
		n.bconv("branch3x3dbl_3a", d, rect(384, 1, 3, 0, 1)),
		n.bconv("branch3x3dbl_3b", d, rect(384, 3, 1, 1, 0)))
	return n.concat(1, b1, b3, d, n.poolBranch(x, 192))
}

func init() {
	registerCNN("inceptionv3", "Inception-v3 (Szegedy et al. 2016), torchvision layout without auxiliary head, 299x299",
		InceptionV3, imageNet(299), imageNet(144))
}
