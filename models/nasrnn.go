package models

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// NASRNNConfig sizes an unrolled NAS recurrent network.
type NASRNNConfig struct {
	Batch  int // sequences per inference
	Steps  int // time steps unrolled
	Input  int // features per step
	Hidden int // state width
	Seed   uint64
}

func (c *NASRNNConfig) knobs() map[string]*int {
	return map[string]*int{"batch": &c.Batch, "seq": &c.Steps, "hidden": &c.Hidden}
}

func (c *NASRNNConfig) followHidden(old int) { c.Input = scaleWidth(c.Input, c.Hidden, old) }

func (c *NASRNNConfig) build() (*graph.Graph, error) { return NASRNN(*c) }

// NASRNN unrolls the recurrent cell found by Zoph & Le 2017 ("Neural
// Architecture Search with Reinforcement Learning"; the cell of
// TensorFlow's NASCell) over Steps time steps, with weights shared
// across steps. Each step forms eight combinations of the input x_t
// [Batch, Input] and the state h [Batch, Hidden], each from its own pair
// of MatMuls (x·Wx_i, h·Wh_i + b_i; TASO's benchmark also keeps them
// separate): sigmoid(+), relu(+), sigmoid(+), relu(*), tanh(+),
// sigmoid(+), tanh(+), sigmoid(+); a second level tanh(a0*a1),
// tanh(a2+a3), tanh(a4*a5), sigmoid(a6+a7); the cell state enters as
// tanh(l0 + c), giving c' = that * l1 and h' = tanh(c' * tanh(l2 + l3)).
// Inputs x0..x{Steps-1}, h0, c0; outputs the final h and c.
func NASRNN(c NASRNNConfig) (*graph.Graph, error) {
	if err := positive("batch", c.Batch, "seq (steps)", c.Steps, "input", c.Input, "hidden", c.Hidden); err != nil {
		return nil, err
	}
	n := newNet("nasrnn", c.Seed)
	xs := make([]*graph.Value, c.Steps)
	for t := range xs {
		xs[t] = n.input(fmt.Sprintf("x%d", t), c.Batch, c.Input)
	}
	h := n.input("h0", c.Batch, c.Hidden)
	cs := n.input("c0", c.Batch, c.Hidden)
	var wx, wh, bh [8]*graph.Value
	leave := n.enter("cell")
	for i := range 8 {
		wx[i] = n.normal(fmt.Sprintf("Wx%d", i), 0, 1/sqrtf(c.Input), c.Input, c.Hidden)
		wh[i] = n.normal(fmt.Sprintf("Wh%d", i), 0, 1/sqrtf(c.Hidden), c.Hidden, c.Hidden)
		bh[i] = n.normal(fmt.Sprintf("b%d", i), 0, 0.02, c.Hidden)
	}
	leave()
	for t, x := range xs {
		leave := n.enter("step%d", t)
		var a [8]*graph.Value
		for i := range 8 {
			xi := n.op("MatMul", nil, x, wx[i])
			hi := n.op("Add", nil, n.op("MatMul", nil, h, wh[i]), bh[i])
			if i == 3 {
				a[i] = n.op("Mul", nil, xi, hi)
			} else {
				a[i] = n.op("Add", nil, xi, hi)
			}
		}
		a[0], a[1], a[2], a[3] = n.sigmoid(a[0]), n.relu(a[1]), n.sigmoid(a[2]), n.relu(a[3])
		a[4], a[5], a[6], a[7] = n.tanh(a[4]), n.sigmoid(a[5]), n.tanh(a[6]), n.sigmoid(a[7])
		l0 := n.tanh(n.mul(a[0], a[1]))
		l1 := n.tanh(n.add(a[2], a[3]))
		l2 := n.tanh(n.mul(a[4], a[5]))
		l3 := n.sigmoid(n.add(a[6], a[7]))
		l0 = n.tanh(n.add(l0, cs))
		cs = n.mul(l0, l1)
		h = n.tanh(n.mul(cs, n.tanh(n.add(l2, l3))))
		leave()
	}
	return n.finish(named{"h", h}, named{"c", cs})
}

func sqrtf(v int) float64 { return math.Sqrt(float64(v)) }

func init() {
	register("nasrnn", "NAS recurrent cell (Zoph & Le 2017) unrolled over 5 steps; TASO benchmark sizes",
		func() config {
			// FACTS §2: NASRNN hidden 512, 5 steps (TASO/Tensat); batch 1, input width = hidden.
			return &NASRNNConfig{Batch: 1, Steps: 5, Input: 512, Hidden: 512, Seed: 1}
		},
		func() config {
			return &NASRNNConfig{Batch: 48, Steps: 5, Input: 512, Hidden: 512, Seed: 1}
		})
}
