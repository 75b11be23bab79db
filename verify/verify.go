package verify

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
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
	// Seeds is the number of random input sets (default 3; with Sets
	// given, 0 means none: only the user's sets are compared).
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
	// Sets are the user's own input sets (inputs.Read), compared after
	// the random ones; each must match the first model's inputs, their
	// bound shapes included (inputs.Set.Match).
	Sets []inputs.Set
	// Draw draws the random input set of a seed for the first model's
	// graph (nil: inputs.Random's generator).
	Draw func(g *graph.Graph, seed uint64) (map[string]*graph.Tensor, error)
	// Backend returns the backend Runtimes verifies on for a runtime name
	// (nil: measure.NewBackend with default options). A run that verifies
	// several models passes a measure.SessionPool's, so that each model is
	// loaded once.
	Backend func(name string) (measure.Backend, error)
	// Reference, when set, remembers the first model's outputs per
	// backend and input set, and gives them back to a later Pair of the
	// same model (see Outputs).
	Reference *Outputs
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Seeds <= 0 && len(o.Sets) == 0 {
		o.Seeds = 3
	}
	if o.FirstSeed == 0 {
		o.FirstSeed = 1
	}
	if o.Tolerance <= 0 {
		o.Tolerance = DefaultRTol
	}
	if o.ATol <= 0 {
		o.ATol = DefaultATol
	}
	return o
}

// Models runs a and b on the same input sets (see Pair) with backend be
// and compares their outputs position by position. Both models must have
// static shapes and matching input and output signatures.
func Models(be measure.Backend, a, b *graph.Model, opts Options) (Result, error) {
	return Pair(be, a, be, b, opts)
}

// Pair is Models with model a run on backend beA and model b on beB; with
// a == b it checks two backends against each other. The models run on
// opts.Seeds random input sets (inputs.Random), then on extra random sets
// that take an If of a the way no set took it yet (see Result.Branches),
// then on the user's sets.
func Pair(beA measure.Backend, a *graph.Model, beB measure.Backend, b *graph.Model, opts Options) (Result, error) {
	opts = opts.withDefaults()
	if err := sameSignature(a.Graph, b.Graph); err != nil {
		return Result{}, err
	}
	sa, sb, err := loadBoth(beA, a, beB, b)
	if err != nil {
		return Result{}, err
	}
	defer sa.Close()
	defer sb.Close()
	res := Result{OK: true, RTol: opts.Tolerance, ATol: opts.ATol}
	sets, branches, err := inputSets(a.Graph, opts)
	if err != nil {
		return res, err
	}
	res.Branches = branches
	res.Outputs = make([]OutputError, len(a.Graph.Outputs))
	finite := make([]bool, len(a.Graph.Outputs))
	seen := make([]outputsSeen, len(a.Graph.Outputs))
	ra := &remembered{s: sa, store: opts.Reference, key: outputsKey{backend: beA.Name(), model: a}}
	for _, set := range sets {
		if err := res.compareSet(ra, sb, a.Graph, b.Graph, set, finite, seen, opts); err != nil {
			return res, err
		}
	}
	for i := range res.Outputs {
		res.Outputs[i].Constant = len(sets) > 1 && !seen[i].varies
		if !finite[i] && len(sets) > 0 {
			res.Outputs[i].NonFinite = true
			res.OK = false
			res.Worst = fmt.Sprintf("output %q, NaN or infinite everywhere in both models", res.Outputs[i].Name)
		}
	}
	if res.MaxRatio > 1 || res.MaxRelL2 > opts.Tolerance {
		res.OK = false
	}
	return res, nil
}

// outputsSeen records whether one output of the first model held
// different data on two input sets.
type outputsSeen struct {
	first  graph.Hash
	some   bool
	varies bool
}

// see records output data t.
func (o *outputsSeen) see(t *graph.Tensor) {
	d := t.Digest()
	switch {
	case !o.some:
		o.first, o.some = d, true
	case d != o.first:
		o.varies = true
	}
}

// compareSet runs sessions sa (of graph a) and sb (of b) on one input
// set and folds the comparison of their outputs into r; finite[i] records
// that output i had a finite element or none at all, seen[i] whether a's
// output i varied between sets.
func (r *Result) compareSet(sa, sb measure.Session, a, b *graph.Graph, set inputs.Set, finite []bool, seen []outputsSeen, opts Options) error {
	inB := make(map[string]*graph.Tensor, len(set.Tensors))
	for i, v := range a.Inputs {
		if v.Const == nil {
			inB[b.Inputs[i].Name] = set.Tensors[v.Name]
		}
	}
	oa, err := sa.Run(set.Tensors)
	if err != nil {
		return fmt.Errorf("first model, input set %s: %w", set.Name, err)
	}
	ob, err := sb.Run(inB)
	if err != nil {
		return fmt.Errorf("second model, input set %s: %w", set.Name, err)
	}
	se := SetError{Name: set.Name}
	for i, v := range a.Outputs {
		x, y := oa[v.Name], ob[b.Outputs[i].Name]
		if x != nil {
			seen[i].see(x)
		}
		e, err := compareTensors(x, y, opts.Tolerance, opts.ATol)
		if err != nil {
			return fmt.Errorf("output %q, input set %s: %w", v.Name, set.Name, err)
		}
		finite[i] = finite[i] || !e.NonFinite
		o := &r.Outputs[i]
		o.Name = v.Name
		o.MaxAbs = math.Max(o.MaxAbs, e.MaxAbs)
		o.RelL2 = math.Max(o.RelL2, e.RelL2)
		o.Mismatched = o.Mismatched || e.Mismatched
		o.Ratio = math.Max(o.Ratio, e.Ratio)
		if se.Worst == "" || e.Ratio > se.Ratio {
			se.Worst, se.Ratio, se.RelL2 = v.Name, e.Ratio, e.RelL2
		}
		r.MaxAbs = math.Max(r.MaxAbs, e.MaxAbs)
		r.MaxRelL2 = math.Max(r.MaxRelL2, e.RelL2)
		if e.Ratio > r.MaxRatio || (e.Mismatched && r.OK) {
			r.MaxRatio = math.Max(r.MaxRatio, e.Ratio)
			r.Worst = fmt.Sprintf("output %q, %s", v.Name, set.Name)
		}
		if e.Mismatched {
			r.OK = false
		}
	}
	r.Sets = append(r.Sets, se)
	return nil
}

// loadBoth loads a on beA and b on beB at the same time (ONNX Runtime
// spends most of a large graph's load optimising it on one core).
func loadBoth(beA measure.Backend, a *graph.Model, beB measure.Backend, b *graph.Model) (sa, sb measure.Session, err error) {
	var errB error
	done := make(chan bool)
	go func() {
		defer close(done)
		sb, errB = beB.Load(b)
	}()
	sa, err = beA.Load(a)
	<-done
	if err == nil && errB == nil {
		return sa, sb, nil
	}
	if sa != nil {
		sa.Close()
	}
	if sb != nil {
		sb.Close()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("first model: %w", err)
	}
	return nil, nil, fmt.Errorf("second model: %w", errB)
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
