package models

import "github.com/xrl-dev/xrl/graph"

// MobileNetV2 builds MobileNetV2 (width 1.0) of Sandler et al. 2018
// ("MobileNetV2: Inverted Residuals and Linear Bottlenecks"), torchvision
// layout: 3x3/2 convolution to 32 channels; seventeen inverted-residual
// blocks (1x1 expansion by t, 3x3 depthwise convolution with stride s, 1x1
// linear projection, each convolution with BatchNorm and all but the
// projection with ReLU6 as Clip(0, 6); identity shortcut when the stride
// is 1 and widths match) with (t, c, n, s) = (1,16,1,1), (6,24,2,2),
// (6,32,3,2), (6,64,4,2), (6,96,3,1), (6,160,3,2), (6,320,1,1); 1x1
// convolution to 1280; global average pool and a linear classifier.
// Input [Batch, 3, Image, Image]; logits [Batch, Classes].
func MobileNetV2(c CNNConfig) (*graph.Graph, error) {
	if err := c.check(32); err != nil {
		return nil, err
	}
	const eps = 1e-5
	n := newNet("mobilenetv2", c.Seed)
	x := n.input("image", c.Batch, 3, c.Image, c.Image)
	x = n.relu6(n.convBN("features0", x, sq(32, 3, 2, 1), eps))
	in, block := 32, 1
	for _, s := range []struct{ t, c, n, s int }{
		{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
	} {
		for i := range s.n {
			stride := 1
			if i == 0 {
				stride = s.s
			}
			leave := n.enter("features%d", block)
			x = n.invertedResidual(x, in, s.c, stride, s.t, eps)
			leave()
			in = s.c
			block++
		}
	}
	x = n.relu6(n.convBN("features18", x, sq(1280, 1, 1, 0), eps))
	return n.finish(named{"logits", n.dense("classifier", n.globalPool(x), c.Classes)})
}

// invertedResidual is MobileNetV2's block: expand, depthwise, project.
func (n *net) invertedResidual(x *graph.Value, in, out, stride, expand int, eps float32) *graph.Value {
	hidden := in * expand
	y := x
	if expand != 1 {
		y = n.relu6(n.convBN("expand", y, sq(hidden, 1, 1, 0), eps))
	}
	y = n.relu6(n.convBN("depthwise", y, sq(hidden, 3, stride, 1).groups(hidden), eps))
	y = n.convBN("project", y, sq(out, 1, 1, 0).linearInit(), eps)
	if stride == 1 && in == out {
		return n.add(x, y)
	}
	return y
}

func init() {
	registerCNN("mobilenetv2", "MobileNetV2 1.0 (Sandler et al. 2018), torchvision layout, ImageNet 224x224",
		MobileNetV2, imageNet(224), imageNetBatch(224, 3))
}
