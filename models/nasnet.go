package models

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// NASNetConfig sizes a NASNet-A image classifier.
type NASNetConfig struct {
	Batch       int // images per inference
	Image       int // input height and width in pixels
	Classes     int // classifier outputs
	Cells       int // normal cells per stage (N)
	Penultimate int // channels before the classifier (a multiple of 24)
	Stem        int // channels of the stem convolution
	Seed        uint64
}

func (c *NASNetConfig) knobs() map[string]*int {
	return map[string]*int{"batch": &c.Batch, "image": &c.Image, "hidden": &c.Penultimate, "layers": &c.Cells, "classes": &c.Classes}
}

func (c *NASNetConfig) build() (*graph.Graph, error) { return NASNetA(*c) }

// nasEps is the BatchNorm epsilon of the reference implementation.
const nasEps = 1e-3

// NASNetA builds NASNet-A of Zoph et al. 2018 ("Learning Transferable
// Architectures for Scalable Image Recognition") following the TF-slim /
// Keras layout: a 3x3/2 unpadded stem convolution with BatchNorm, two
// reduction cells as stem cells (filters F/4 and F/2, F = Penultimate/24),
// then three stages of Cells normal cells with F, 2F and 4F filters, a
// reduction cell between stages, ReLU, global average pool and a linear
// classifier. A normal cell fits the previous cell's output to the current
// one (factorised reduction or 1x1 convolution), squeezes its input with
// ReLU-1x1-BatchNorm, combines five pairs of separable convolutions
// (ReLU, depthwise kxk, pointwise 1x1, BatchNorm, twice), 3x3 average
// pools and identities, and concatenates six states; a reduction cell
// combines stride-2 separable convolutions and pools into four. Pooling
// and stride-2 padding are TF "SAME". Paper preset: NASNet-A Mobile
// (4 @ 1056) at 224x224.
func NASNetA(c NASNetConfig) (*graph.Graph, error) {
	if err := positive("batch", c.Batch, "image", c.Image, "classes", c.Classes, "cells", c.Cells, "stem", c.Stem); err != nil {
		return nil, err
	}
	if err := divisible("penultimate filters (hidden)", c.Penultimate, "24", 24); err != nil {
		return nil, err
	}
	if c.Penultimate < 96 {
		return nil, fmt.Errorf("penultimate filters (hidden) must be at least 96, got %d", c.Penultimate)
	}
	if c.Image < 32 {
		return nil, fmt.Errorf("image must be at least 32 pixels, got %d", c.Image)
	}
	f := c.Penultimate / 24
	n := newNet("nasneta", c.Seed)
	x := n.input("image", c.Batch, 3, c.Image, c.Image)
	x = n.convBN("stem", x, sq(c.Stem, 3, 2, 0), nasEps)
	p := x
	x = n.reductionCell("cell_stem_0", x, nil, f/4)
	p, x = x, n.reductionCell("cell_stem_1", x, p, f/2)
	cell := 0
	for stage := range 3 {
		filters := f << stage
		if stage > 0 {
			p, x = x, n.reductionCell(fmt.Sprintf("reduction_cell_%d", stage-1), x, p, filters)
		}
		for range c.Cells {
			p, x = x, n.normalCell(fmt.Sprintf("cell_%d", cell), x, p, filters)
			cell++
		}
	}
	return n.finish(named{"logits", n.dense("fc", n.globalPool(n.relu(x)), c.Classes)})
}

// normalCell is the NASNet-A normal cell on input ip and previous state p.
func (n *net) normalCell(name string, ip, p *graph.Value, filters int) *graph.Value {
	defer n.enter("%s", name)()
	p = n.fitPrevious(p, ip, filters)
	h := n.convBN("squeeze", n.relu(ip), sq(filters, 1, 1, 0), nasEps)
	x1 := n.add(n.sepConv("comb0_left", h, filters, 5, 1), n.sepConv("comb0_right", p, filters, 3, 1))
	x2 := n.add(n.sepConv("comb1_left", p, filters, 5, 1), n.sepConv("comb1_right", p, filters, 3, 1))
	x3 := n.add(n.avgPoolSame(h, 3, 1), p)
	x4 := n.add(n.avgPoolSame(p, 3, 1), n.avgPoolSame(p, 3, 1))
	x5 := n.add(n.sepConv("comb4_left", h, filters, 3, 1), h)
	return n.concat(1, p, x1, x2, x3, x4, x5)
}

// reductionCell is the NASNet-A reduction cell (stride 2).
func (n *net) reductionCell(name string, ip, p *graph.Value, filters int) *graph.Value {
	defer n.enter("%s", name)()
	p = n.fitPrevious(p, ip, filters)
	h := n.convBN("squeeze", n.relu(ip), sq(filters, 1, 1, 0), nasEps)
	x1 := n.add(n.sepConv("comb0_left", h, filters, 5, 2), n.sepConv("comb0_right", p, filters, 7, 2))
	x2 := n.add(n.maxPoolSame(h, 3, 2), n.sepConv("comb1_right", p, filters, 7, 2))
	x3 := n.add(n.avgPoolSame(h, 3, 2), n.sepConv("comb2_right", p, filters, 5, 2))
	x4 := n.add(n.avgPoolSame(x1, 3, 1), x2)
	x5 := n.add(n.sepConv("comb4_left", x1, filters, 3, 1), n.maxPoolSame(h, 3, 2))
	return n.concat(1, x2, x3, x4, x5)
}

// sepConv is NASNet's stacked separable convolution: twice ReLU,
// depthwise k x k convolution (stride only the first time), pointwise
// 1x1 convolution to filters, BatchNorm.
func (n *net) sepConv(name string, x *graph.Value, filters, k, stride int) *graph.Value {
	defer n.enter("%s", name)()
	for i := range 2 {
		c := n.dims(x)[1]
		x = n.conv(fmt.Sprintf("depthwise%d", i+1), n.relu(x), sameConv(c, k, stride).groups(c).linearInit())
		x = n.bn(fmt.Sprintf("bn%d", i+1), n.conv(fmt.Sprintf("pointwise%d", i+1), x, sq(filters, 1, 1, 0)), nasEps)
		stride = 1
	}
	return x
}

// fitPrevious adjusts the previous state p to ip's spatial size and to
// filters channels: a factorised reduction when the sizes differ, a
// ReLU-1x1-BatchNorm when only the channels differ; p = ip when absent.
func (n *net) fitPrevious(p, ip *graph.Value, filters int) *graph.Value {
	if p == nil {
		return ip
	}
	pd, id := n.dims(p), n.dims(ip)
	switch {
	case pd[2] != id[2]:
		defer n.enter("adjust")()
		p = n.relu(p)
		p1 := n.conv("path1", n.avgPool(p, 1, 2, 0, false), sq(filters/2, 1, 1, 0))
		// Path 2 shifts by one pixel: pad bottom/right, drop top/left row.
		s := n.op("Pad", nil, p, n.int64s(0, 0, 0, 0, 0, 0, 1, 1))
		s = n.track(n.op("Slice", nil, s, n.int64s(1, 1), n.int64s(pd[2]+1, pd[3]+1), n.int64s(2, 3)), n.msq(p))
		p2 := n.conv("path2", n.avgPool(s, 1, 2, 0, false), sq(filters-filters/2, 1, 1, 0))
		return n.bn("bn", n.concat(1, p1, p2), nasEps)
	case pd[1] != filters:
		defer n.enter("adjust")()
		return n.convBN("project", n.relu(p), sq(filters, 1, 1, 0), nasEps)
	}
	return p
}

func init() {
	// Zoph et al. 2018 Table 2: NASNet-A (4 @ 1056), 224x224, 5.3M parameters.
	register("nasneta", "NASNet-A Mobile 4@1056 (Zoph et al. 2018), TF-slim/Keras layout, ImageNet 224x224",
		func() config {
			return &NASNetConfig{Batch: 1, Image: 224, Classes: 1000, Cells: 4, Penultimate: 1056, Stem: 32, Seed: 1}
		},
		func() config {
			return &NASNetConfig{Batch: 1, Image: 160, Classes: 1000, Cells: 4, Penultimate: 1056, Stem: 32, Seed: 1}
		})
}
