package inputs

import (
	"fmt"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/sysmem"
)

// Integer values of inputs that are neither indices nor trip counts come,
// element by element, from one of three kinds, taken in turn over the
// seeds (seed 1 the first kind for element 0, the second for element 1
// ...), so that three seeds see all three on every element.
const (
	kindCompared = iota // a value the graph compares the input with
	kindFlag            // 0 or 1
	kindSmall           // small counts and sizes, minSmall..maxSmall
	numKinds
)

// The small values drawn, and the trip counts of Loops.
const (
	minSmall, maxSmall = 2, 9
	minTrip, maxTrip   = 2, 4
)

// Options changes what Random draws.
type Options struct {
	// Float64 draws float16 and float32 inputs as float64 tensors, the
	// Go executor's reference precision (rewrite checks run in it).
	Float64 bool
}

// Generator draws seeded random input sets for one graph; New analyses
// the graph once.
type Generator struct {
	g    *graph.Graph
	opts Options
	uses map[*graph.Value]*intUse
}

// New returns a Generator for g's non-constant inputs.
func New(g *graph.Graph, opts Options) *Generator {
	return &Generator{g: g, opts: opts, uses: intUses(g)}
}

// Random returns seeded random tensors for every non-constant input of
// g, which must have static shapes: New(g, Options{}).Draw(seed).
func Random(g *graph.Graph, seed uint64) (map[string]*graph.Tensor, error) {
	return New(g, Options{}).Draw(seed)
}

// Draw returns seeded random tensors for every non-constant input of the
// graph, which must have static shapes. Floats are uniform in [-1, 1),
// and in [-100, 100) for every seed divisible by 3 (a rewrite that holds
// only for small magnitudes must not pass a check over three seeds);
// bools are fair coin flips. An integer read as Gather indices (token
// ids) is uniform below the size of the axis it indexes (the smallest,
// when several Gathers read it); one read as indices by another op, or
// subtracted from 1 (an attention mask), stays 0 or 1; a Loop's trip count is drawn from 2 to 4; any other integer
// takes, element by element in turn over the seeds, a value the graph
// compares it with (or, with none, a small value), 0 or 1, and a small
// value from 2 to 9, each below the Gather bound when it has one.
func (gen *Generator) Draw(seed uint64) (map[string]*graph.Tensor, error) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	scale := 1.0
	if seed%3 == 0 {
		scale = 100
	}
	out := make(map[string]*graph.Tensor, len(gen.g.Inputs))
	for _, in := range gen.g.Inputs {
		if in.Const != nil {
			continue
		}
		shape, err := in.StaticShape()
		if err != nil {
			return nil, fmt.Errorf("input %q: %w (bind it with --shape)", in.Name, err)
		}
		size, err := graph.ByteSize(in.DType, in.Shape)
		if err == nil {
			err = sysmem.CheckBytes(size, fmt.Sprintf("random data for input %q (%v %v)", in.Name, in.DType, in.Shape))
		}
		if err != nil {
			return nil, fmt.Errorf("input %q: %w", in.Name, err)
		}
		dt := in.DType
		if gen.opts.Float64 && (dt == graph.Float32 || dt == graph.Float16) {
			dt = graph.Float64
		}
		t := graph.NewTensor(dt, shape...)
		if err := gen.fill(t, in, r, seed, scale); err != nil {
			return nil, fmt.Errorf("input %q: %w", in.Name, err)
		}
		out[in.Name] = t
	}
	return out, nil
}

// fill draws t's elements for input in.
func (gen *Generator) fill(t *graph.Tensor, in *graph.Value, r *rand.Rand, seed uint64, scale float64) error {
	switch d := t.Data.(type) {
	case []float32:
		for i := range d {
			d[i] = float32(scale * (r.Float64()*2 - 1))
		}
	case []float64:
		for i := range d {
			d[i] = scale * (r.Float64()*2 - 1)
		}
	case []bool:
		for i := range d {
			d[i] = r.IntN(2) == 1
		}
	default:
		if !in.DType.IsInt() {
			return fmt.Errorf("cannot generate random %v data", in.DType)
		}
		u := gen.uses[in]
		if u == nil {
			u = &intUse{}
		}
		return setInts(t, func(i int) int64 { return u.draw(r, seed, i) })
	}
	return nil
}

// draw returns the value of element i of an integer input used as u
// says, on the given seed.
func (u *intUse) draw(r *rand.Rand, seed uint64, i int) int64 {
	switch {
	case u.trip:
		return minTrip + r.Int64N(maxTrip-minTrip+1)
	case u.bound > 0 && len(u.compared) == 0:
		return r.Int64N(u.bound)
	case u.flag || u.index && u.bound == 0:
		return r.Int64N(2)
	}
	kind := int((seed + numKinds - 1 + uint64(i)) % numKinds)
	if kind == kindCompared {
		if c := u.within(u.compared); len(c) > 0 {
			return c[r.IntN(len(c))]
		}
		kind = kindSmall
	}
	if kind == kindFlag {
		return r.Int64N(2)
	}
	if u.bound > 0 {
		return r.Int64N(u.bound)
	}
	return minSmall + r.Int64N(maxSmall-minSmall+1)
}

// within returns the values of vs in [0, bound) when u has a bound, else
// vs.
func (u *intUse) within(vs []int64) []int64 {
	if u.bound == 0 {
		return vs
	}
	var out []int64
	for _, v := range vs {
		if v >= 0 && v < u.bound {
			out = append(out, v)
		}
	}
	return out
}

// setInts sets every element i of integer tensor t to f(i), converted to
// t's element type.
func setInts(t *graph.Tensor, f func(i int) int64) error {
	switch d := t.Data.(type) {
	case []int64:
		fillInts(d, f)
	case []int32:
		fillInts(d, f)
	case []int16:
		fillInts(d, f)
	case []int8:
		fillInts(d, f)
	case []uint64:
		fillInts(d, f)
	case []uint32:
		fillInts(d, f)
	case []uint16:
		fillInts(d, f)
	case []uint8:
		if t.DType != graph.Uint8 {
			return fmt.Errorf("cannot generate random %v data", t.DType)
		}
		fillInts(d, f)
	default:
		return fmt.Errorf("cannot generate random %v data", t.DType)
	}
	return nil
}

// fillInts sets d[i] = f(i), converted.
func fillInts[T int64 | int32 | int16 | int8 | uint64 | uint32 | uint16 | uint8](d []T, f func(i int) int64) {
	for i := range d {
		d[i] = T(f(i))
	}
}
