package rules

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/runtime"
)

// VerifyOptions controls rule verification.
type VerifyOptions struct {
	// Sample chooses the instances (at least 3 by default).
	Sample SampleOptions
	// Tolerance is the largest relative error accepted (default 1e-9).
	Tolerance float64
	// Threads bounds the executor's goroutines (default 1: rules are tiny).
	Threads int
}

// VerifyReport is the outcome of verifying one rule.
type VerifyReport struct {
	Rule string
	// Instances is the number of instances executed.
	Instances int
	// Shapes is the number of distinct shape assignments among them.
	Shapes int
	// Combos is the number of distinct attribute assignments among them.
	Combos int
	// MaxRelErr is the largest relative error over all instances and
	// outputs: max |source - target| / max |source| per output.
	MaxRelErr float64
	// Worst describes the instance with the largest error.
	Worst string
	// OK reports that every instance ran and MaxRelErr <= Tolerance.
	OK bool
	// Err describes why verification failed (nil when OK).
	Err error
}

// Verify executes r's source and target in float64 with the Go executor
// on random inputs, for instances drawn by Sample, and reports the largest
// relative error. A rule whose instances cannot be drawn, whose target
// cannot be built, or whose outputs differ by more than the tolerance gets
// OK false with Err set; the returned error is reserved for failures of
// the machinery (the executor rejecting a graph).
func Verify(r *Rule, opts VerifyOptions) (VerifyReport, error) {
	if opts.Tolerance <= 0 {
		opts.Tolerance = 1e-9
	}
	if opts.Threads <= 0 {
		opts.Threads = 1
	}
	rep := VerifyReport{Rule: r.Name}
	insts, err := r.Sample(opts.Sample)
	if err != nil {
		rep.Err = err
		return rep, nil
	}
	combos, shapes := map[string]bool{}, map[string]bool{}
	for i, inst := range insts {
		shapes[dimsKey(inst)] = true
		src, tgt, err := r.Instantiate(inst)
		if err != nil {
			rep.Err = fmt.Errorf("instance %s: %w", inst, err)
			return rep, nil
		}
		rel, err := compareRun(r, src, tgt, opts, inst.Seed+uint64(i)*7919)
		var mm *mismatchError
		if errors.As(err, &mm) {
			rep.MaxRelErr, rep.Worst = math.Inf(1), inst.String()
			rep.Err = fmt.Errorf("rule %s, instance %s: %w", r.Name, inst, err)
			return rep, nil
		}
		if err != nil {
			return rep, fmt.Errorf("rule %s, instance %s: %w", r.Name, inst, err)
		}
		rep.Instances++
		ak := ""
		for _, v := range r.Vars {
			if v.Kind != TensorVar {
				ak += inst.Attrs[v.Name].String() + ";"
			}
		}
		combos[ak] = true
		if rep.Worst == "" || rel > rep.MaxRelErr || math.IsNaN(rel) {
			rep.MaxRelErr, rep.Worst = rel, inst.String()
		}
	}
	rep.Combos, rep.Shapes = len(combos), len(shapes)
	rep.OK = rep.MaxRelErr <= opts.Tolerance
	if !rep.OK {
		rep.Err = fmt.Errorf("rule %s: relative error %.3g exceeds %.3g (instance %s)", r.Name, rep.MaxRelErr, opts.Tolerance, rep.Worst)
	}
	return rep, nil
}

// compareRun executes both graphs on the same random inputs and returns
// the largest relative error over their outputs.
func compareRun(r *Rule, src, tgt *graph.Graph, opts VerifyOptions, seed uint64) (float64, error) {
	eo := runtime.ExecOptions{Precision: graph.Float64, Threads: opts.Threads}
	es, err := runtime.NewExecutor(src, eo)
	if err != nil {
		return 0, fmt.Errorf("source: %w", err)
	}
	et, err := runtime.NewExecutor(tgt, eo)
	if err != nil {
		return 0, fmt.Errorf("target: %w", err)
	}
	rng := rand.New(rand.NewPCG(seed, hashName(r.Name)^0x5bd1e995))
	positive := map[string]bool{}
	for _, v := range r.Vars {
		if v.Positive {
			positive[v.Name] = true
		}
	}
	inputs := map[string]*graph.Tensor{}
	for _, in := range src.Inputs {
		shape, err := in.StaticShape()
		if err != nil {
			return 0, err
		}
		t := graph.NewTensor(graph.Float64, shape...)
		fillRandom(t, rng, positive[in.Name])
		inputs[in.Name] = t
	}
	os, err := es.Run(inputs)
	if err != nil {
		return 0, fmt.Errorf("running source: %w", err)
	}
	ot, err := et.Run(inputs)
	if err != nil {
		return 0, fmt.Errorf("running target: %w", err)
	}
	worst := 0.0
	for i := range src.Outputs {
		a, b := os[src.Outputs[i].Name], ot[tgt.Outputs[i].Name]
		if a == nil || b == nil {
			return 0, fmt.Errorf("output %d missing", i)
		}
		if !slicesEqual(a.Shape, b.Shape) {
			return 0, &mismatchError{fmt.Sprintf("output %d: the target's shape %s differs from the source's %s", i, graph.ShapeString(b.Shape), graph.ShapeString(a.Shape))}
		}
		rel, err := relErr(a, b)
		if err != nil {
			return 0, fmt.Errorf("output %d: %w", i, err)
		}
		if rel > worst || math.IsNaN(rel) {
			worst = rel
		}
	}
	return worst, nil
}

// mismatchError reports source and target outputs of different shapes.
type mismatchError struct{ msg string }

func (e *mismatchError) Error() string { return e.msg }

// relErr returns max |a-b| / max |a| (0 when both are all zero; +Inf when
// shapes differ or only one side is NaN).
func relErr(a, b *graph.Tensor) (float64, error) {
	if !slicesEqual(a.Shape, b.Shape) {
		return math.Inf(1), nil
	}
	x, err := a.AsFloat64()
	if err != nil {
		return 0, err
	}
	y, err := b.AsFloat64()
	if err != nil {
		return 0, err
	}
	var diff, scale float64
	for i := range x {
		if math.IsNaN(x[i]) != math.IsNaN(y[i]) {
			return math.Inf(1), nil
		}
		if math.IsNaN(x[i]) {
			continue
		}
		diff = max(diff, math.Abs(x[i]-y[i]))
		scale = max(scale, math.Abs(x[i]), math.Abs(y[i]))
	}
	if diff == 0 {
		return 0, nil
	}
	return diff / scale, nil
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// VerifyAll verifies the rules of set named in names (all when names is
// empty), in set order. An unknown name is an error.
func VerifyAll(set *Set, names []string, opts VerifyOptions) ([]VerifyReport, error) {
	rules := set.Rules
	if len(names) > 0 {
		rules = nil
		for _, n := range names {
			r := set.Lookup(n)
			if r == nil {
				return nil, fmt.Errorf("no rule named %q (xrl rules list shows them)", n)
			}
			rules = append(rules, r)
		}
	}
	out := make([]VerifyReport, 0, len(rules))
	for _, r := range rules {
		rep, err := Verify(r, opts)
		if err != nil {
			return out, err
		}
		out = append(out, rep)
	}
	return out, nil
}
