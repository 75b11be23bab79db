package measure

import (
	"fmt"
	"math"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// VerifyOptions controls how two models are checked to compute the same
// function.
type VerifyOptions struct {
	// Seeds is the number of random input sets (default 3).
	Seeds int
	// FirstSeed is the seed of the first input set (default 1).
	FirstSeed uint64
	// Tolerance bounds the relative error (default 1e-4, for float32).
	Tolerance float64
}

// VerifyResult reports the largest disagreement found.
type VerifyResult struct {
	// MaxAbs is the largest absolute difference over all outputs and seeds.
	MaxAbs float64
	// MaxRel is the largest relative error, |a-b| / max(|b|, rms(b)), where
	// rms(b) is the root-mean-square of that output of b: elements larger
	// than the output's typical magnitude are compared relatively, smaller
	// ones against that magnitude (float rounding of a sum scales with the
	// sum's terms, not with its result, so near-zero results would
	// otherwise dominate).
	MaxRel float64
	// Worst names the output (and seed) with the largest relative error.
	Worst string
	// OK reports MaxRel <= Tolerance and no NaN/Inf mismatch.
	OK bool
}

// String summarises the result.
func (r VerifyResult) String() string {
	verdict := "equal within tolerance"
	if !r.OK {
		verdict = "DIFFERENT"
	}
	s := fmt.Sprintf("%s: max abs error %.3g, max rel error %.3g", verdict, r.MaxAbs, r.MaxRel)
	if r.Worst != "" && r.MaxRel > 0 {
		s += " (worst: " + r.Worst + ")"
	}
	return s
}

// Verify runs a and b on the same random inputs with backend be and
// compares their outputs position by position. Both models must have
// static shapes and matching input and output signatures.
func Verify(be Backend, a, b *graph.Model, opts VerifyOptions) (VerifyResult, error) {
	return VerifyPair(be, a, be, b, opts)
}

// VerifyPair is Verify with model a run on backend beA and model b on beB;
// with a == b it checks two backends against each other.
func VerifyPair(beA Backend, a *graph.Model, beB Backend, b *graph.Model, opts VerifyOptions) (VerifyResult, error) {
	if opts.Seeds <= 0 {
		opts.Seeds = 3
	}
	if opts.FirstSeed == 0 {
		opts.FirstSeed = 1
	}
	if opts.Tolerance <= 0 {
		opts.Tolerance = 1e-4
	}
	if err := sameSignature(a.Graph, b.Graph); err != nil {
		return VerifyResult{}, err
	}
	sa, err := beA.Load(a)
	if err != nil {
		return VerifyResult{}, fmt.Errorf("first model: %w", err)
	}
	defer sa.Close()
	sb, err := beB.Load(b)
	if err != nil {
		return VerifyResult{}, fmt.Errorf("second model: %w", err)
	}
	defer sb.Close()
	res := VerifyResult{OK: true}
	for k := 0; k < opts.Seeds; k++ {
		seed := opts.FirstSeed + uint64(k)
		inA, err := RandomInputs(a.Graph, seed)
		if err != nil {
			return res, err
		}
		inB := make(map[string]*graph.Tensor, len(inA))
		for i, v := range a.Graph.Inputs {
			if v.Const == nil {
				inB[b.Graph.Inputs[i].Name] = inA[v.Name]
			}
		}
		oa, err := sa.Run(inA)
		if err != nil {
			return res, fmt.Errorf("first model: %w", err)
		}
		ob, err := sb.Run(inB)
		if err != nil {
			return res, fmt.Errorf("second model: %w", err)
		}
		for i, v := range a.Graph.Outputs {
			x, y := oa[v.Name], ob[b.Graph.Outputs[i].Name]
			abs, rel, bad, err := compareTensors(x, y)
			if err != nil {
				return res, fmt.Errorf("output %q: %w", v.Name, err)
			}
			res.MaxAbs = math.Max(res.MaxAbs, abs)
			if rel > res.MaxRel || (bad && res.OK) {
				res.MaxRel = math.Max(res.MaxRel, rel)
				res.Worst = fmt.Sprintf("output %q, seed %d", v.Name, seed)
			}
			if bad {
				res.OK = false
			}
		}
	}
	if res.MaxRel > opts.Tolerance {
		res.OK = false
	}
	return res, nil
}

func sameSignature(a, b *graph.Graph) error {
	ia, ib := runtimeInputs(a), runtimeInputs(b)
	if len(ia) != len(ib) {
		return fmt.Errorf("models differ in their inputs: %d vs %d", len(ia), len(ib))
	}
	for i := range ia {
		if ia[i].DType != ib[i].DType || !ia[i].Shape.Equal(ib[i].Shape) {
			return fmt.Errorf("input %d differs: %q %v %v vs %q %v %v", i,
				ia[i].Name, ia[i].DType, ia[i].Shape, ib[i].Name, ib[i].DType, ib[i].Shape)
		}
	}
	if len(a.Outputs) != len(b.Outputs) {
		return fmt.Errorf("models differ in their outputs: %d vs %d", len(a.Outputs), len(b.Outputs))
	}
	for i := range a.Outputs {
		oa, ob := a.Outputs[i], b.Outputs[i]
		if oa.DType != ob.DType || (oa.ShapeKnown && ob.ShapeKnown && !oa.Shape.Equal(ob.Shape)) {
			return fmt.Errorf("output %d differs: %q %v %v vs %q %v %v", i,
				oa.Name, oa.DType, oa.Shape, ob.Name, ob.DType, ob.Shape)
		}
	}
	return nil
}

func runtimeInputs(g *graph.Graph) []*graph.Value {
	var out []*graph.Value
	for _, v := range g.Inputs {
		if v.Const == nil {
			out = append(out, v)
		}
	}
	return out
}

// compareTensors returns the max absolute and relative error between x and
// y (see VerifyResult.MaxRel) and whether a NaN/Inf appears in only one.
func compareTensors(x, y *graph.Tensor) (abs, rel float64, bad bool, err error) {
	if x == nil || y == nil {
		return 0, 0, true, fmt.Errorf("missing output")
	}
	if !slices.Equal(x.Shape, y.Shape) {
		return 0, 0, true, fmt.Errorf("shapes differ: %v vs %v", x.Shape, y.Shape)
	}
	a, err := x.AsFloat64()
	if err != nil {
		return 0, 0, true, err
	}
	b, err := y.AsFloat64()
	if err != nil {
		return 0, 0, true, err
	}
	var ss float64
	for _, v := range b {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			ss += v * v
		}
	}
	floor := math.Sqrt(ss / math.Max(1, float64(len(b))))
	if floor == 0 {
		floor = 1e-30
	}
	for i := range a {
		fa, fb := a[i], b[i]
		if math.IsNaN(fa) || math.IsNaN(fb) || math.IsInf(fa, 0) || math.IsInf(fb, 0) {
			if !(math.IsNaN(fa) && math.IsNaN(fb)) && fa != fb {
				bad = true
			}
			continue
		}
		d := math.Abs(fa - fb)
		abs = math.Max(abs, d)
		rel = math.Max(rel, d/math.Max(math.Abs(fb), floor))
	}
	return abs, rel, bad, nil
}
