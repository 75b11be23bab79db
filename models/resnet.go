package models

import "github.com/xrl-dev/xrl/graph"

// ResNet18 builds ResNet-18 of He et al. 2016 ("Deep Residual Learning for
// Image Recognition"), torchvision layout: 7x7/2 stem convolution,
// BatchNorm, ReLU and 3x3/2 max pool; four stages of two basic blocks
// (two 3x3 convolutions with BatchNorm, identity or 1x1/2 projection
// shortcut) of 64, 128, 256 and 512 channels; global average pool and a
// linear classifier. Input [Batch, 3, Image, Image]; logits [Batch, Classes].
func ResNet18(c CNNConfig) (*graph.Graph, error) {
	return resnet("resnet18", c, []int{2, 2, 2, 2}, false, 1, 64)
}

// ResNet50 builds ResNet-50 of He et al. 2016, torchvision layout ("v1.5":
// the stride sits on the 3x3 convolution): the ResNet-18 stem and head
// around four stages of 3, 4, 6 and 3 bottleneck blocks (1x1 reduce, 3x3,
// 1x1 expand by 4, each with BatchNorm) of widths 64, 128, 256 and 512.
func ResNet50(c CNNConfig) (*graph.Graph, error) {
	return resnet("resnet50", c, []int{3, 4, 6, 3}, true, 1, 64)
}

// ResNeXt50 builds ResNeXt-50 (32x4d) of Xie et al. 2017 ("Aggregated
// Residual Transformations for Deep Neural Networks"): ResNet-50 whose
// bottleneck 3x3 convolutions are grouped convolutions with 32 groups of 4
// channels in the first stage (widths 128, 256, 512, 1024 by stage).
func ResNeXt50(c CNNConfig) (*graph.Graph, error) {
	return resnet("resnext50", c, []int{3, 4, 6, 3}, true, 32, 4)
}

// resnet builds the ResNet family. Stage s has planes 64<<s; a bottleneck
// block's inner width is planes*widthPerGroup/64*groups and its output
// 4*planes; a basic block's width and output are planes.
func resnet(name string, c CNNConfig, blocks []int, bottleneck bool, groups, widthPerGroup int) (*graph.Graph, error) {
	if err := c.check(32); err != nil {
		return nil, err
	}
	const eps = 1e-5
	n := newNet(name, c.Seed)
	img := n.input("image", c.Batch, 3, c.Image, c.Image)
	x := n.convBNReLU("stem", img, sq(64, 7, 2, 3), eps)
	x = n.maxPool(x, 3, 2, 1, false)
	in := 64
	for s, count := range blocks {
		planes := 64 << s
		for i := range count {
			stride := 1
			if i == 0 && s > 0 {
				stride = 2
			}
			leave := n.enter("layer%d/block%d", s+1, i)
			var out int
			if bottleneck {
				width := planes * widthPerGroup / 64 * groups
				out = planes * 4
				y := n.convBNReLU("conv1", x, sq(width, 1, 1, 0), eps)
				y = n.convBNReLU("conv2", y, sq(width, 3, stride, 1).groups(groups), eps)
				x = n.residual(x, n.convBN("conv3", y, sq(out, 1, 1, 0), eps), in, out, stride, eps)
			} else {
				out = planes
				y := n.convBNReLU("conv1", x, sq(out, 3, stride, 1), eps)
				x = n.residual(x, n.convBN("conv2", y, sq(out, 3, 1, 1), eps), in, out, stride, eps)
			}
			in = out
			leave()
		}
	}
	return n.finish(named{"logits", n.dense("fc", n.globalPool(x), c.Classes)})
}

// residual adds the branch to the shortcut (a 1x1 projection with
// BatchNorm when the stride or width changes) and applies ReLU.
func (n *net) residual(x, branch *graph.Value, in, out, stride int, eps float32) *graph.Value {
	if stride != 1 || in != out {
		x = n.convBN("downsample", x, sq(out, 1, stride, 0), eps)
	}
	return n.relu(n.add(branch, x))
}

func init() {
	registerCNN("resnet18", "ResNet-18 (He et al. 2016), torchvision layout, ImageNet 224x224",
		ResNet18, imageNet(224), imageNet(192))
	registerCNN("resnet50", "ResNet-50 (He et al. 2016), torchvision v1.5 layout, ImageNet 224x224",
		ResNet50, imageNet(224), imageNet(112))
	registerCNN("resnext50", "ResNeXt-50 32x4d (Xie et al. 2017), torchvision layout, ImageNet 224x224",
		ResNeXt50, imageNet(224), imageNet(112))
}
