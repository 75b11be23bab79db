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
	// Measure's parts: the measured passes (applying, checking, verifying
	// at the tuning shape and timing each), verifying the model they chose
	// at the other shapes and on the user's inputs, the never-slower
	// decision at the tuning shape, the shape sweep, and the per-op
	// profile (-v); the memory report and writing are the rest.
	Passes     time.Duration `json:"measured_passes_ns"`
	Everywhere time.Duration `json:"verify_other_shapes_ns"`
	NotSlower  time.Duration `json:"never_slower_ns"`
	Sweep      time.Duration `json:"sweep_ns"`
	Profile    time.Duration `json:"op_profile_ns"`
	// Total is the whole run.
	Total time.Duration `json:"total_ns"`
}

// Shared returns the time every method spends outside its search.
func (t Times) Shared() time.Duration { return t.Prepare + t.Expand + t.Verify + t.Measure }

// String formats the split on one line, the form scripts/eval-heldout
// reads, Measure's parts in brackets.
func (t Times) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	parts := ""
	for _, p := range []struct {
		name string
		d    time.Duration
	}{{"measured passes", t.Passes}, {"other shapes", t.Everywhere}, {"never slower", t.NotSlower}, {"sweep", t.Sweep}, {"op profile", t.Profile}} {
		if p.d > 0 {
			if parts != "" {
				parts += ", "
			}
			parts += fmt.Sprintf("%s %v", p.name, r(p.d))
		}
	}
	if parts != "" {
		parts = " [" + parts + "]"
	}
	return fmt.Sprintf("time: search %v; shared %v (prepare %v, start graph's candidates %v, verify %v, measure and write %v%s); total %v",
		r(t.Search), r(t.Shared()), r(t.Prepare), r(t.Expand), r(t.Verify), r(t.Measure), parts, r(t.Total))
}
