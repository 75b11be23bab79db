package models

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// ResMLPConfig sizes a residual MLP of identical blocks.
type ResMLPConfig struct {
	Batch  int // rows per inference
	Hidden int // width of every activation and of the square weight
	Blocks int // residual blocks; the graph has 4 x Blocks nodes
	Seed   uint64
}

func (c *ResMLPConfig) knobs() map[string]*int {
	return map[string]*int{"batch": &c.Batch, "hidden": &c.Hidden, "layers": &c.Blocks}
}

func (c *ResMLPConfig) build() (*graph.Graph, error) { return ResMLP(*c) }

// ResMLP builds a chain of Blocks residual blocks over one weight
// W [Hidden, Hidden] and one bias b [Hidden] that every block shares:
// x' = x + Relu(x·W + b), four nodes a block (MatMul, Add, Relu, Add).
// Input x [Batch, Hidden]; output y, the last block's result. It is the
// graph of SGDP's scale (50,000 nodes at the paper preset), not a trained
// network's: its size, not its function, is what it tests. W's entries
// have standard deviation 1/(2·sqrt(Hidden)·Blocks), so W's spectral norm
// is about 1/Blocks and the output stays within a small factor of x
// however deep the chain.
func ResMLP(c ResMLPConfig) (*graph.Graph, error) {
	if err := positive("batch", c.Batch, "hidden", c.Hidden, "layers (blocks)", c.Blocks); err != nil {
		return nil, err
	}
	n := newNet("resmlp", c.Seed)
	x := n.input("x", c.Batch, c.Hidden)
	scale := 1 / (2 * float64(c.Hidden) * float64(c.Blocks))
	w := n.normal("W", 0, scale*math.Sqrt(float64(c.Hidden)), c.Hidden, c.Hidden)
	b := n.normal("b", 0, scale, c.Hidden)
	for i := range c.Blocks {
		leave := n.enter("block%d", i)
		h := n.op("Relu", nil, n.op("Add", nil, n.op("MatMul", nil, x, w), b))
		x = n.op("Add", nil, x, h)
		leave()
	}
	return n.finish(named{"y", x})
}

// Scale presets of the residual MLP: the paper preset is SGDP's 50,000
// nodes; the cpu preset 1,000.
const (
	resMLPPaperBlocks = 12_500
	resMLPCPUBlocks   = 250
)

func init() {
	registerScale("resmlp", "Residual MLP (x + Relu(x·W + b), one shared W and b) on [1, 64]; SGDP's graph scale: 12,500 blocks, 50,000 nodes",
		func() config { return &ResMLPConfig{Batch: 1, Hidden: 64, Blocks: resMLPPaperBlocks, Seed: 1} },
		func() config { return &ResMLPConfig{Batch: 1, Hidden: 64, Blocks: resMLPCPUBlocks, Seed: 1} })
}
