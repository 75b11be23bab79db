package rewrite

import (
	"errors"
	"fmt"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// Reject says why a match produced no candidate.
type Reject string

// Reasons a match or its rewrite is rejected.
const (
	// RejectExternal: a value made inside the match is read outside it (or
	// is a graph output) without being a source output. Counted by the
	// matcher; such matches are never applied.
	RejectExternal Reject = "external-use"
	// RejectSymmetric: the match covers the same nodes as an earlier match
	// of the same rule in another arrangement (a symmetric source such as
	// three MatMuls sharing an input matches in every order).
	RejectSymmetric Reject = "symmetric"
	// RejectBuild: the rule's target cannot be built for the matched
	// shapes (shape inference of a target node fails).
	RejectBuild Reject = "build"
	// RejectShape: a target output's dimensions differ from those of the
	// value it replaces in their expressions over the model's symbolic
	// dimensions: the rewrite holds only at the bound shape (a size
	// computed at the binding and frozen into a constant).
	RejectShape Reject = "symbolic-shape"
	// RejectCycle: the rewritten graph would have a cycle.
	RejectCycle Reject = "cycle"
	// RejectFold: constant folding of the rewritten region failed.
	RejectFold Reject = "fold"
	// RejectSize: the rewritten graph has more nodes than Options.MaxNodes.
	RejectSize Reject = "size"
	// RejectUnchanged: the rewritten graph is the input graph (same
	// canonical hash).
	RejectUnchanged Reject = "unchanged"
	// RejectDuplicate: an earlier candidate has the same canonical hash.
	RejectDuplicate Reject = "duplicate"
	// RejectInternal: applying the match failed unexpectedly (a bug,
	// reported instead of crashing the caller).
	RejectInternal Reject = "internal"
)

// rejectError carries a Reject reason.
type rejectError struct {
	reason Reject
	err    error
}

func (e *rejectError) Error() string { return fmt.Sprintf("%s: %v", e.reason, e.err) }
func (e *rejectError) Unwrap() error { return e.err }

func reject(reason Reject, err error) error { return &rejectError{reason, err} }

// reasonOf returns the Reject reason of an error from applyMatch.
func reasonOf(err error) Reject {
	var re *rejectError
	if errors.As(err, &re) {
		return re.reason
	}
	return RejectBuild
}

// applyStats are the folding counts of one application.
type applyStats struct {
	fold FoldStats
}

// applyMatch rewrites the match in d's base graph by copy on write: the
// matched nodes are removed, the target's nodes added, every reader of a
// source output reads the corresponding target output instead, a graph
// output keeps its name (the new value is renamed, or an Identity is added
// when the replacement is an existing value, as rules.Apply does), new
// nodes whose inputs are all constants are folded and nodes and
// initializers left unread are removed. The draft is left to be finished
// (finish, or place and a lazy candidate).
func applyMatch(d *draft, m *rules.Match, pos []int32, foldLimit int64) (applyStats, error) {
	var st applyStats
	gx := d.gx
	r := m.Rule
	rep, err := r.Build(m, gx.namer(r.Name))
	if err != nil {
		return st, reject(RejectBuild, err)
	}
	from := m.Outputs()
	if err := sameShapes(from, rep.Outputs); err != nil {
		return st, reject(RejectShape, fmt.Errorf("rule %s: %w", r.Name, err))
	}
	for _, p := range pos {
		d.setSlot(p, nil)
	}
	d.added = append(d.added, rep.Nodes...)
	for _, c := range rep.Consts {
		d.addConst(c)
	}
	changed := d.rewire(from, rep.Outputs)
	// Graph outputs.
	keep := rules.NewOutputKeeper(rep.Nodes)
	for i, o := range d.outputs {
		k := indexOf(from, o)
		if k < 0 {
			continue
		}
		out, id, err := keep.Replace(o, rep.Outputs[k], func() string {
			if name := o.Name + "_identity"; !gx.usedNames()[name] {
				return name
			}
			return gx.namer(r.Name)("Identity")
		})
		if err != nil {
			return st, reject(RejectBuild, fmt.Errorf("rule %s: %w", r.Name, err))
		}
		if id != nil {
			d.tail = append(d.tail, id)
		}
		d.outputs[i] = out
	}
	// Fold what the rewrite made constant: the new nodes and the nodes
	// now reading a replacement.
	start := make([]nodeRef, 0, len(rep.Nodes)+len(changed))
	for a := range rep.Nodes {
		start = append(start, nodeRef{p: -1, a: a})
	}
	start = append(start, changed...)
	if err := d.fold(start, &st.fold, true, foldLimit); err != nil {
		return st, reject(RejectFold, fmt.Errorf("rule %s: %w", r.Name, err))
	}
	// Remove what nothing reads any more.
	var seeds []*graph.Value
	for _, p := range pos {
		seeds = append(seeds, gx.nodes[p].AllInputs()...)
	}
	seeds = append(seeds, rep.Consts...)
	seeds = append(seeds, d.foldSeeds...)
	for _, n := range rep.Nodes {
		seeds = append(seeds, n.Outputs...)
	}
	st.fold.DeadNodes, st.fold.DeadConsts = d.removeDead(seeds)
	return st, nil
}

// cycleReject marks a cycle error of finishing a draft as RejectCycle.
func cycleReject(rule string, err error) error {
	var ce *graph.CycleError
	if errors.As(err, &ce) {
		return reject(RejectCycle, fmt.Errorf("rule %s: %w", rule, err))
	}
	return err
}

// sameShapes checks that each replacement has the shape, expressions
// included, of the value it replaces.
func sameShapes(from, to []*graph.Value) error {
	for i, o := range from {
		if i >= len(to) || o == nil || to[i] == nil || !o.ShapeKnown || !to[i].ShapeKnown {
			continue
		}
		if !o.Shape.Equal(to[i].Shape) {
			return fmt.Errorf("%q has shape %s, its replacement %s", o.Name, o.Shape.SymString(), to[i].Shape.SymString())
		}
	}
	return nil
}

// SameOutputShapes checks that after's outputs have the shapes of
// before's, expressions over the symbolic dimensions included: a
// whole-graph rewrite must not specialise a model to its bound shape.
func SameOutputShapes(before, after *graph.Graph) error {
	if len(before.Outputs) != len(after.Outputs) {
		return fmt.Errorf("%d outputs become %d", len(before.Outputs), len(after.Outputs))
	}
	if err := sameShapes(before.Outputs, after.Outputs); err != nil {
		return fmt.Errorf("output %w (a rewrite valid only at the bound shape)", err)
	}
	return nil
}

func indexOf(vs []*graph.Value, v *graph.Value) int {
	for i, w := range vs {
		if w == v {
			return i
		}
	}
	return -1
}
