package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MLP is a stack of linear maps with tanh between them and a linear
// output.
type MLP[F Float] struct {
	Layers []*Linear[F]
}

// NewMLP returns an MLP in → hidden... → out. Hidden layers are orthogonal
// with gain √2 and the output layer with outGain; layers are named
// name+".0", name+".1", ...
func NewMLP[F Float](name string, in int, hidden []int, out int, outGain float64, rng *rand.Rand) *MLP[F] {
	m := &MLP[F]{}
	for i, w := range append(append([]int(nil), hidden...), out) {
		gain := math.Sqrt2
		if i == len(hidden) {
			gain = outGain
		}
		m.Layers = append(m.Layers, NewLinear[F](fmt.Sprintf("%s.%d", name, i), in, w, gain, rng))
		in = w
	}
	return m
}

// Params returns the parameters of all layers in order.
func (m *MLP[F]) Params() []*Param[F] {
	var ps []*Param[F]
	for _, l := range m.Layers {
		ps = append(ps, l.Params()...)
	}
	return ps
}

// MLPCache holds the activations of an MLP forward pass and scratch
// space for its backward pass.
type MLPCache[F Float] struct {
	rows   int
	acts   [][]F // acts[0] is the input; acts[i+1] the output of layer i
	d0, d1 []F
}

// Forward applies the MLP to x (rows×In) and returns the output
// (rows×Out), which lives in c. x must stay unchanged until Backward.
func (m *MLP[F]) Forward(x []F, rows int, c *MLPCache[F]) []F {
	c.rows = rows
	for len(c.acts) < len(m.Layers)+1 {
		c.acts = append(c.acts, nil)
	}
	c.acts[0] = x
	for i, l := range m.Layers {
		y := grow(c.acts[i+1], rows*l.Out)
		l.Forward(c.acts[i], rows, y)
		if i+1 < len(m.Layers) {
			Tanh(y, y)
		}
		c.acts[i+1] = y
	}
	return c.acts[len(m.Layers)]
}

// Backward adds the parameter gradients for output gradient dy and
// writes dx (rows×In) unless it is nil.
func (m *MLP[F]) Backward(c *MLPCache[F], dy, dx []F) {
	rows := c.rows
	d := dy
	for i := len(m.Layers) - 1; i >= 0; i-- {
		l := m.Layers[i]
		var out []F
		switch {
		case i == 0:
			out = dx
		case i%2 == 0:
			c.d0 = grow(c.d0, rows*l.In)
			out = c.d0
		default:
			c.d1 = grow(c.d1, rows*l.In)
			out = c.d1
		}
		l.Backward(c.acts[i], d, rows, out)
		if i > 0 {
			TanhBackward(c.acts[i], out, out)
		}
		d = out
	}
}
