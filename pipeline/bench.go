package pipeline

import (
	"fmt"
	"sync"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// bench is what a run measures with: one backend (the default one, with the
// run's options) and one input set at the tuning shape, made once and
// shared by every decision of the run (the measured passes, never-slower,
// the shape sweep), so that each compares its models on the same inputs
// in the same engine.
type bench struct {
	once sync.Once
	be   measure.Backend
	in   map[string]*graph.Tensor
	err  error
}

// bench returns the run's backend and tuning-shape inputs (drawn from seed
// for the original's graph), making them on first use.
func (s *Start) bench(m Measurement, seed uint64) (measure.Backend, map[string]*graph.Tensor, error) {
	b := &s.measuring
	b.once.Do(func() {
		b.be, b.err = measure.NewBackend(measure.DefaultBackendName(), m.Backend)
		if b.err != nil {
			return
		}
		b.in, b.err = measure.RandomInputs(s.Orig.Graph, seed)
		if b.err != nil {
			b.err = fmt.Errorf("inputs for timing: %w", b.err)
		}
	})
	return b.be, b.in, b.err
}
