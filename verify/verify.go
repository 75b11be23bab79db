package verify

import (
	"fmt"
	"math"
	"strings"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// Default tolerances of Models and Pair, for float32 models: an element
// passes when |a-b| <= DefaultATol*s + DefaultRTol*|b|, numpy.allclose's
// rule with the absolute tolerance in units of the output's scale s (its
// root mean square, at least 1), and each output's relative L2 error must
// also stay within DefaultRTol. Scaling atol keeps a near-zero element of a large output (a
// logit near 0 among logits of size 50) from failing on float32 rounding,
// whose size follows the magnitude of the terms summed, not of the result.
const (
	DefaultRTol = 1e-4
	DefaultATol = 1e-5
)

// Options controls how two models are checked to compute the same
// function.
type Options struct {
	// Seeds is the number of random input sets (default 3).
	Seeds int
	// FirstSeed is the seed of the first input set (default 1).
	FirstSeed uint64
	// Tolerance is the relative tolerance rtol (0: DefaultRTol).
	Tolerance float64
	// ATol is the absolute tolerance atol (0: DefaultATol), in units of
	// the output's scale (its root mean square, at least 1). It keeps
	// near-zero outputs (a sigmoid's tail, a cancelled sum) from failing on
	// float32 rounding that is tiny next to the output's magnitude.
	ATol float64
}

// OutputError is the disagreement found on one output (over all seeds).
type OutputError struct {
	Name string
	// MaxAbs is the largest |a-b|.
	MaxAbs float64
	// Ratio is the largest |a-b| / (atol*s + rtol*|b|), s the output's
	// scale: at most 1 passes.
	Ratio float64
	// RelL2 is the largest ||a-b|| / max(||b||, (atol/rtol)*sqrt(n)) over
	// the seeds (n elements; the floor keeps an all-zero output meaningful).
	RelL2 float64
	// Mismatched reports a NaN or Inf present in only one of the outputs.
	Mismatched bool
}

// Result reports the largest disagreement found.
type Result struct {
	// RTol and ATol are the tolerances applied.
	RTol, ATol float64
	// MaxAbs is the largest absolute difference over all outputs and seeds.
	MaxAbs float64
	// MaxRatio is the largest |a-b| / (atol*s + rtol*|b|) over all
	// elements, s the output's scale; OK needs it <= 1.
	MaxRatio float64
	// MaxRelL2 is the largest relative L2 error of an output; OK needs it
	// <= rtol.
	MaxRelL2 float64
	// Worst names the output (and seed) with the largest ratio.
	Worst string
	// Outputs holds the errors of each output, in graph order.
	Outputs []OutputError
	// OK reports that every element is within tolerance, every output's
	// relative L2 error is within rtol, and no NaN/Inf appears in only one.
	OK bool
}

// String summarises the result.
func (r Result) String() string {
	verdict := "equal within tolerance"
	if !r.OK {
		verdict = "DIFFERENT"
	}
	s := fmt.Sprintf("%s (|a-b| <= %g*s + %g*|b|, s = max(1, RMS(b))): max abs error %.3g, max |a-b|/(atol*s+rtol*|b|) %.3g, max rel L2 error %.3g",
		verdict, r.ATol, r.RTol, r.MaxAbs, r.MaxRatio, r.MaxRelL2)
	if r.Worst != "" && r.MaxRatio > 0 {
		s += " (worst: " + r.Worst + ")"
	}
	return s
}

// Details lists each output's errors, one line each.
func (r Result) Details() string {
	var b strings.Builder
	for _, o := range r.Outputs {
		fmt.Fprintf(&b, "  output %q: max abs error %.3g, max |a-b|/(atol*s+rtol*|b|) %.3g, rel L2 error %.3g", o.Name, o.MaxAbs, o.Ratio, o.RelL2)
		if o.Mismatched {
			b.WriteString(", NaN/Inf in only one model")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Models runs a and b on the same random inputs (measure.RandomInputs)
// with backend be and compares their outputs position by position. Both
// models must have static shapes and matching input and output
// signatures.
func Models(be measure.Backend, a, b *graph.Model, opts Options) (Result, error) {
	return Pair(be, a, be, b, opts)
}

// Pair is Models with model a run on backend beA and model b on beB; with
// a == b it checks two backends against each other.
func Pair(beA measure.Backend, a *graph.Model, beB measure.Backend, b *graph.Model, opts Options) (Result, error) {
	if opts.Seeds <= 0 {
		opts.Seeds = 3
	}
	if opts.FirstSeed == 0 {
		opts.FirstSeed = 1
	}
	if opts.Tolerance <= 0 {
		opts.Tolerance = DefaultRTol
	}
	if opts.ATol <= 0 {
		opts.ATol = DefaultATol
	}
	if err := sameSignature(a.Graph, b.Graph); err != nil {
		return Result{}, err
	}
	sa, err := beA.Load(a)
	if err != nil {
		return Result{}, fmt.Errorf("first model: %w", err)
	}
	defer sa.Close()
	sb, err := beB.Load(b)
	if err != nil {
		return Result{}, fmt.Errorf("second model: %w", err)
	}
	defer sb.Close()
	res := Result{OK: true, RTol: opts.Tolerance, ATol: opts.ATol}
	res.Outputs = make([]OutputError, len(a.Graph.Outputs))
	for k := 0; k < opts.Seeds; k++ {
		seed := opts.FirstSeed + uint64(k)
		inA, err := measure.RandomInputs(a.Graph, seed)
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
			e, err := compareTensors(x, y, opts.Tolerance, opts.ATol)
			if err != nil {
				return res, fmt.Errorf("output %q: %w", v.Name, err)
			}
			o := &res.Outputs[i]
			o.Name = v.Name
			o.MaxAbs = math.Max(o.MaxAbs, e.MaxAbs)
			o.RelL2 = math.Max(o.RelL2, e.RelL2)
			o.Mismatched = o.Mismatched || e.Mismatched
			if e.Ratio > o.Ratio {
				o.Ratio = e.Ratio
			}
			res.MaxAbs = math.Max(res.MaxAbs, e.MaxAbs)
			res.MaxRelL2 = math.Max(res.MaxRelL2, e.RelL2)
			if e.Ratio > res.MaxRatio || (e.Mismatched && res.OK) {
				res.MaxRatio = math.Max(res.MaxRatio, e.Ratio)
				res.Worst = fmt.Sprintf("output %q, seed %d", v.Name, seed)
			}
			if e.Mismatched {
				res.OK = false
			}
		}
	}
	if res.MaxRatio > 1 || res.MaxRelL2 > opts.Tolerance {
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
