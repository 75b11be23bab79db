package ruleverify

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"text/tabwriter"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// Options controls rule verification.
type Options struct {
	// Sample chooses the instances (at least 3 by default).
	Sample rules.SampleOptions
	// Tolerance is the largest relative error accepted (default 1e-9).
	Tolerance float64
	// Threads bounds the executor's goroutines (default 1: rules are tiny).
	Threads int
}

// Report is the outcome of verifying one rule.
type Report struct {
	Rule string
	// Instances is the number of instances executed.
	Instances int
	// Runs is the number of executions: every instance runs once per
	// data distribution (rules.Dists).
	Runs int
	// Shapes is the number of distinct shape assignments among them.
	Shapes int
	// Combos is the number of distinct attribute assignments among them.
	Combos int
	// MaxRelErr is the largest relative error over all instances and
	// outputs: max |source - target| / max |source| per output.
	MaxRelErr float64
	// Worst describes the instance with the largest error.
	Worst string
	// Exact reports that the rule is built only from polynomial and
	// piecewise-linear ops and that every instance was also checked in
	// exact rational arithmetic on random integers (see exactCompare).
	Exact bool
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
func Verify(r *rules.Rule, opts Options) (Report, error) {
	if opts.Tolerance <= 0 {
		opts.Tolerance = 1e-9
	}
	if opts.Threads <= 0 {
		opts.Threads = 1
	}
	rep := Report{Rule: r.Name}
	insts, err := r.Sample(opts.Sample)
	if err != nil {
		rep.Err = err
		return rep, nil
	}
	combos, shapes := map[string]bool{}, map[string]bool{}
	exact := true
	vars, nonneg := map[string]bool{}, map[string]bool{}
	pinned := r.Pinned()
	for _, v := range r.Vars {
		// A pinned constant keeps its value in the exact check, like
		// the rule's literals.
		if v.Kind == rules.TensorVar && !pinned[v] {
			vars[v.Name] = true
			nonneg[v.Name] = v.Range != rules.RangeAny
		}
	}
	for i, inst := range insts {
		shapes[rules.Instance{Dims: inst.Dims}.String()] = true
		for di, d := range rules.Dists {
			inst.Dist = d
			where := fmt.Sprintf("%s, %s data", inst, d)
			src, tgt, err := r.Instantiate(inst)
			if err != nil {
				rep.Err = fmt.Errorf("instance %s: %w", where, err)
				return rep, nil
			}
			rel, err := compareRun(src, tgt, opts, d, inst.Seed+uint64(i)*7919+uint64(di)*104729, rules.NameHash(r.Name))
			var mm *mismatchError
			if errors.As(err, &mm) {
				rep.MaxRelErr, rep.Worst = math.Inf(1), where
				rep.Err = fmt.Errorf("rule %s, instance %s: %w", r.Name, where, err)
				return rep, nil
			}
			if err != nil {
				return rep, fmt.Errorf("rule %s, instance %s: %w", r.Name, where, err)
			}
			rep.Runs++
			if rep.Worst == "" || rel > rep.MaxRelErr || math.IsNaN(rel) {
				rep.MaxRelErr, rep.Worst = rel, where
			}
		}
		if exact && rep.MaxRelErr <= opts.Tolerance {
			// (A float failure is reported as such, below.)
			inst.Dist = rules.DistUnit
			src, tgt, err := r.Instantiate(inst)
			if err != nil {
				rep.Err = fmt.Errorf("instance %s: %w", inst, err)
				return rep, nil
			}
			if !exactable(src) || !exactable(tgt) {
				exact = false
			} else {
				same, why, err := exactCompare(src, tgt, inst.Seed+uint64(i)*7919, vars, nonneg)
				if err != nil {
					return rep, fmt.Errorf("rule %s, instance %s: exact check: %w", r.Name, inst, err)
				}
				if !same {
					rep.MaxRelErr, rep.Worst = math.Inf(1), inst.String()
					rep.Err = fmt.Errorf("rule %s, instance %s: exact check on random integers: %s", r.Name, inst, why)
					return rep, nil
				}
			}
		}
		rep.Instances++
		ak := ""
		for _, v := range r.Vars {
			if v.Kind != rules.TensorVar {
				ak += inst.Attrs[v.Name].String() + ";"
			}
		}
		combos[ak] = true
	}
	rep.Combos, rep.Shapes = len(combos), len(shapes)
	rep.Exact = exact && rep.Instances > 0
	rep.OK = rep.MaxRelErr <= opts.Tolerance
	if !rep.OK {
		rep.Err = fmt.Errorf("rule %s: relative error %.3g exceeds %.3g (instance %s)", r.Name, rep.MaxRelErr, opts.Tolerance, rep.Worst)
	}
	return rep, nil
}

// newPair compiles executors for graphs a and b (called nameA and nameB in
// errors).
func newPair(a, b *graph.Graph, eo executor.ExecOptions, nameA, nameB string) (ea, eb *executor.Executor, err error) {
	ea, err = executor.NewExecutor(a, eo)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", nameA, err)
	}
	eb, err = executor.NewExecutor(b, eo)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", nameB, err)
	}
	return ea, eb, nil
}

// runPair runs executors a and b (called nameA and nameB in errors) on
// the same inputs.
func runPair(a, b *executor.Executor, inputs map[string]*graph.Tensor, nameA, nameB string) (outA, outB map[string]*graph.Tensor, err error) {
	outA, err = a.Run(inputs)
	if err != nil {
		return nil, nil, fmt.Errorf("running %s: %w", nameA, err)
	}
	outB, err = b.Run(inputs)
	if err != nil {
		return nil, nil, fmt.Errorf("running %s: %w", nameB, err)
	}
	return outA, outB, nil
}

// compareRun executes both graphs on the same random inputs of
// distribution d and returns the largest relative error over their
// outputs (see relErr).
func compareRun(src, tgt *graph.Graph, opts Options, d rules.Dist, seed, salt uint64) (float64, error) {
	eo := executor.ExecOptions{Precision: graph.Float64, Threads: opts.Threads}
	es, et, err := newPair(src, tgt, eo, "source", "target")
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(seed, salt^0x5bd1e995))
	inputs := map[string]*graph.Tensor{}
	for _, in := range src.Inputs {
		shape, err := in.StaticShape()
		if err != nil {
			return 0, err
		}
		t := graph.NewTensor(graph.Float64, shape...)
		rules.FillDist(t, rng, d, rules.RangeAny)
		inputs[in.Name] = t
	}
	os, ot, err := runPair(es, et, inputs, "source", "target")
	if err != nil {
		return 0, err
	}
	worst := 0.0
	for i := range src.Outputs {
		a, b := os[src.Outputs[i].Name], ot[tgt.Outputs[i].Name]
		if a == nil || b == nil {
			return 0, fmt.Errorf("output %d missing", i)
		}
		if !slices.Equal(a.Shape, b.Shape) {
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

// All verifies the rules of set named in names (all when names is
// empty), in set order. An unknown name is an error.
func All(set *rules.Set, names []string, opts Options) ([]Report, error) {
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
	out := make([]Report, 0, len(rules))
	for _, r := range rules {
		rep, err := Verify(r, opts)
		if err != nil {
			return out, err
		}
		out = append(out, rep)
	}
	return out, nil
}

// WriteVerify writes verification reports as a table (for `xrl rules
// verify`): rule, instances, distinct shapes, attribute combinations, max
// relative error, ok; then the failures' reasons and a summary line. It returns an error
// when any rule failed, so the command exits non-zero.
func WriteVerify(w io.Writer, reps []Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tINSTANCES\tSHAPES\tCOMBOS\tMAX REL ERROR\tEXACT\tOK")
	failed, exacts := 0, 0
	worst := 0.0
	for _, rep := range reps {
		ok := "ok"
		if !rep.OK {
			ok = "FAIL"
			failed++
		}
		if !math.IsInf(rep.MaxRelErr, 0) {
			worst = max(worst, rep.MaxRelErr)
		}
		ex := "-"
		if rep.Exact {
			ex = "exact"
			exacts++
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.3g\t%s\t%s\n", rep.Rule, rep.Instances, rep.Shapes, rep.Combos, rep.MaxRelErr, ex, ok)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, rep := range reps {
		if !rep.OK {
			fmt.Fprintf(w, "FAIL %s: %v\n", rep.Rule, rep.Err)
		}
	}
	fmt.Fprintf(w, "%d rules verified, %d failed, %d also checked exactly, max relative error %.3g\n", len(reps), failed, exacts, worst)
	if failed > 0 {
		return fmt.Errorf("%d of %d rules failed verification", failed, len(reps))
	}
	return nil
}

// mismatchError reports source and target outputs of different shapes.
type mismatchError struct{ msg string }

func (e *mismatchError) Error() string { return e.msg }
