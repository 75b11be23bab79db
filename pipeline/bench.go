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
// for the original's graph), making them on first use. With the run's
// sessions kept (UseSessionPool), the backend is the pool's.
func (s *Start) bench(m Measurement, seed uint64) (measure.Backend, map[string]*graph.Tensor, error) {
	b := &s.measuring
	b.once.Do(func() {
		if s.sessions != nil {
			b.be, b.err = s.sessions.Backend(measure.DefaultBackendName(), m.Backend)
		} else {
			b.be, b.err = measure.NewBackend(measure.DefaultBackendName(), m.Backend)
		}
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

// UseSessionPool makes the run's verification and measurements load
// each model once on each backend and share its session (see
// measure.SessionPool): a 50,000-node graph took ONNX Runtime a minute to
// load, and verification, the measured passes and never-slower load the
// same few models. src, when not empty, is the file the original was read
// from: ONNX Runtime then loads the original as that file, for
// verification too (at every shape), as never-slower times it. The caller closes the
// returned pool when the run is over.
func (s *Start) UseSessionPool(src string) (*measure.SessionPool, error) {
	p := measure.NewSessionPool(sessionPoolIdle)
	if src != "" {
		data, err := SelfContained(src)
		if err != nil {
			return nil, err
		}
		p.SetFile(s.Orig, data)
		if s.Declared != nil {
			// The declared original (the other shapes' reference) is
			// read from the same file: one session of it serves both.
			p.SetFile(s.Declared, data)
		}
	}
	s.sessions = p
	return p, nil
}

// sessionPoolIdle is the number of idle sessions a run keeps: the
// original's and the written model's on both runtimes, and the folded
// model's or a measured pass's result.
const sessionPoolIdle = 5

// sessionBackend returns the backends verification uses: the run's
// pooled ones (with default options) when it keeps its sessions, else
// nil (verify.Options.Backend's default).
func (s *Start) sessionBackend() func(string) (measure.Backend, error) {
	if s.sessions == nil {
		return nil
	}
	return func(name string) (measure.Backend, error) {
		return s.sessions.Backend(name, measure.BackendOptions{})
	}
}
