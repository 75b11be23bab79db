package models

import "github.com/xrl-dev/xrl/graph"

// SqueezeNet builds SqueezeNet 1.1 of Iandola et al. 2016 ("SqueezeNet:
// AlexNet-level accuracy with 50x fewer parameters and <0.5MB model
// size"; version 1.1 from the authors' repository, torchvision layout):
// 3x3/2 convolution (64) and ReLU, 3x3/2 max pools (ceil mode) after the
// stem and after fire modules 3 and 5, eight fire modules (1x1 squeeze,
// then 1x1 and 3x3 expand concatenated, all with bias and ReLU) of
// squeeze/expand widths 16/64, 16/64, 32/128, 32/128, 48/192, 48/192,
// 64/256, 64/256, and a 1x1 convolution to Classes with ReLU and global
// average pool as the classifier. No BatchNorm. Input [Batch, 3, Image,
// Image]; output [Batch, Classes].
func SqueezeNet(c CNNConfig) (*graph.Graph, error) {
	if err := c.check(32); err != nil {
		return nil, err
	}
	n := newNet("squeezenet", c.Seed)
	x := n.input("image", c.Batch, 3, c.Image, c.Image)
	x = n.relu(n.conv("conv1", x, sq(64, 3, 2, 0).withBias()))
	x = n.maxPool(x, 3, 2, 0, true)
	fires := []struct{ squeeze, expand int }{{16, 64}, {16, 64}, {32, 128}, {32, 128}, {48, 192}, {48, 192}, {64, 256}, {64, 256}}
	for i, f := range fires {
		x = n.fire(i+2, x, f.squeeze, f.expand)
		if i == 1 || i == 3 {
			x = n.maxPool(x, 3, 2, 0, true)
		}
	}
	x = n.relu(n.conv("classifier", x, convSpec{out: c.Classes, kh: 1, kw: 1, stride: 1, group: 1, bias: true, gain: 1e-4 * float64(n.dims(x)[1])}))
	return n.finish(named{"logits", n.globalPool(x)})
}

// fire is a fire module: squeeze 1x1, then 1x1 and 3x3 expands concatenated.
func (n *net) fire(idx int, x *graph.Value, squeeze, expand int) *graph.Value {
	defer n.enter("fire%d", idx)()
	s := n.relu(n.conv("squeeze", x, sq(squeeze, 1, 1, 0).withBias()))
	return n.concat(1,
		n.relu(n.conv("expand1x1", s, sq(expand, 1, 1, 0).withBias())),
		n.relu(n.conv("expand3x3", s, sq(expand, 3, 1, 1).withBias())))
}

func init() {
	registerCNN("squeezenet", "SqueezeNet 1.1 (Iandola et al. 2016), torchvision layout, ImageNet 224x224",
		SqueezeNet, imageNet(224), imageNetBatch(224, 4))
}
