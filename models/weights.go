package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// net wraps a graph.Builder with a seeded weight source, a naming scope
// and the build-time activation statistics the layer helpers keep.
type net struct {
	b     *graph.Builder
	rng   *rand.Rand
	scope string
	// shared holds literal constants (scalars, shape vectors) by content,
	// so each distinct literal is one initializer.
	shared map[string]*graph.Value
	// ms estimates the mean square of each activation (1 when absent: the
	// graph inputs are standard normal). BatchNormalization statistics are
	// drawn around it so each BatchNormalization standardises its input.
	ms map[*graph.Value]float64
}

func newNet(name string, seed uint64) *net {
	return &net{
		b:      graph.NewBuilder(name),
		rng:    rand.New(rand.NewPCG(seed, 0x78726c)),
		shared: make(map[string]*graph.Value),
		ms:     make(map[*graph.Value]float64),
	}
}

// enter appends name to the naming scope; the returned func restores it.
func (n *net) enter(format string, args ...any) (leave func()) {
	old := n.scope
	name := fmt.Sprintf(format, args...)
	if old != "" {
		name = old + "/" + name
	}
	n.scope = name
	n.b.SetScope(name)
	return func() {
		n.scope = old
		n.b.SetScope(old)
	}
}

// named is a graph output and the name it is given.
type named struct {
	name string
	v    *graph.Value
}

// finish names and marks the outputs and returns the validated graph.
func (n *net) finish(outs ...named) (*graph.Graph, error) {
	for _, o := range outs {
		o.v.Name = o.name
		n.b.Output(o.v)
	}
	return n.b.Graph()
}

// input adds a float32 graph input.
func (n *net) input(name string, shape ...int) *graph.Value {
	return n.b.Input(name, graph.Float32, shape...)
}

// tensor adds a float32 constant whose element i is f(i).
func (n *net) tensor(name string, f func(i int) float64, shape ...int) *graph.Value {
	data := make([]float32, graph.NumElements(shape))
	for i := range data {
		data[i] = float32(f(i))
	}
	return n.b.Const(name, graph.FromFloat32(data, shape...))
}

// normal adds a constant with entries drawn from N(mean, std^2).
func (n *net) normal(name string, mean, std float64, shape ...int) *graph.Value {
	data := make([]float32, graph.NumElements(shape))
	for i := range data {
		data[i] = float32(mean + std*n.rng.NormFloat64())
	}
	return n.b.Const(name, graph.FromFloat32(data, shape...))
}

// uniform adds a constant with entries drawn from U(lo, hi).
func (n *net) uniform(name string, lo, hi float64, shape ...int) *graph.Value {
	return n.tensor(name, func(int) float64 { return lo + (hi-lo)*n.rng.Float64() }, shape...)
}

// sharedConst returns the literal constant with the given key, creating it
// (outside any scope) on first use.
func (n *net) sharedConst(key, name string, t *graph.Tensor) *graph.Value {
	if v, ok := n.shared[key]; ok {
		return v
	}
	n.b.SetScope("")
	v := n.b.Const(name, t)
	n.b.SetScope(n.scope)
	n.shared[key] = v
	return v
}

// scalar returns a rank-0 float32 literal.
func (n *net) scalar(v float32) *graph.Value {
	key := fmt.Sprintf("f32:%x", math.Float32bits(v))
	name := "const_" + strings.NewReplacer(".", "_", "-", "neg", "+", "").Replace(fmt.Sprint(v))
	return n.sharedConst(key, name, graph.FromFloat32([]float32{v}))
}

// int64s returns a rank-1 int64 literal (a shape or split vector).
func (n *net) int64s(vals ...int) *graph.Value {
	data := make([]int64, len(vals))
	parts := make([]string, len(vals))
	for i, v := range vals {
		data[i] = int64(v)
		parts[i] = fmt.Sprint(v)
	}
	key := "i64:" + strings.Join(parts, ",")
	return n.sharedConst(key, "ints_"+strings.Join(parts, "_"), graph.FromInt64(data, len(vals)))
}

// index returns a rank-0 int64 literal.
func (n *net) index(v int) *graph.Value {
	key := fmt.Sprintf("idx:%d", v)
	return n.sharedConst(key, fmt.Sprintf("index_%d", v), graph.FromInt64([]int64{int64(v)}))
}

// msq returns the estimated mean square of v.
func (n *net) msq(v *graph.Value) float64 {
	if m, ok := n.ms[v]; ok {
		return m
	}
	return 1
}

// track records v's estimated mean square and returns v.
func (n *net) track(v *graph.Value, m float64) *graph.Value {
	n.ms[v] = m
	return v
}

// dims returns v's static shape. After a builder error shapes are unknown;
// dims then returns ones so building can continue to the reported error.
func (n *net) dims(v *graph.Value) []int {
	if v == nil || !v.ShapeKnown || !v.Shape.Static() {
		return []int{1, 1, 1, 1, 1, 1, 1, 1}
	}
	return v.Shape.Ints()
}
