package pipeline

import (
	"fmt"
	"time"
)

// Times splits an optimisation run's wall time into the part that
// differs between methods and the part every method shares.
type Times struct {
	// Search is the search, or the agent's rollouts with the loading of
	// its network: the only part that depends on the method.
	Search time.Duration `json:"search_ns"`
	// Prepare is loading, shape binding, folding and building the rule
	// engine; Expand the first expansion of the start graph (its
	// candidates: every method's first step, memoised for the search);
	// Verify folding the result and verifying it; Measure the ONNX Runtime
	// comparison, the memory report and writing the file.
	Prepare time.Duration `json:"prepare_ns"`
	Expand  time.Duration `json:"expand_ns"`
	Verify  time.Duration `json:"verify_ns"`
	Measure time.Duration `json:"measure_ns"`
	// Total is the whole run.
	Total time.Duration `json:"total_ns"`
}

// Shared returns the time every method spends outside its search.
func (t Times) Shared() time.Duration { return t.Prepare + t.Expand + t.Verify + t.Measure }

// String formats the split on one line, the form scripts/eval-heldout
// reads.
func (t Times) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("time: search %v; shared %v (prepare %v, start graph's candidates %v, verify %v, measure and write %v); total %v",
		r(t.Search), r(t.Shared()), r(t.Prepare), r(t.Expand), r(t.Verify), r(t.Measure), r(t.Total))
}
