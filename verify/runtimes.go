package verify

import (
	"errors"
	"fmt"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// RuntimeResult is the outcome of verifying two models on one runtime.
type RuntimeResult struct {
	// Runtime is the backend name ("go", "ort").
	Runtime string
	// Result is the comparison; meaningless when Skipped is set.
	Result Result
	// Skipped is set when the runtime cannot run the models (an op it
	// does not implement).
	Skipped *graph.UnsupportedOpError
}

// String renders the result as one line.
func (r RuntimeResult) String() string {
	if r.Skipped != nil {
		return fmt.Sprintf("not verified on %s (cannot run the models): %v", r.Runtime, r.Skipped)
	}
	return fmt.Sprintf("verified on %s: %v", r.Runtime, r.Result)
}

// Runtimes checks b against a on each backend named in names
// (opts.Backend, else measure.NewBackend). A runtime that cannot run the models
// (*graph.UnsupportedOpError, e.g. an op outside the Go executor) is
// skipped and reported, so that an op xrl cannot execute does not block
// verification where ONNX Runtime can; it is an error when no runtime
// could run them.
func Runtimes(names []string, a, b *graph.Model, opts Options) ([]RuntimeResult, error) {
	var out []RuntimeResult
	ran := false
	newBackend := opts.Backend
	if newBackend == nil {
		newBackend = func(name string) (measure.Backend, error) { return measure.NewBackend(name, measure.BackendOptions{}) }
	}
	// The runtimes verify at the same time: ONNX Runtime spends most of
	// a large model's session loads on one core while the Go executor
	// computes (ViT-B/16: 3 s of loads beside 6 s of Go runs).
	type outcome struct {
		res Result
		err error
	}
	outcomes := make([]chan outcome, len(names))
	for i, name := range names {
		outcomes[i] = make(chan outcome, 1)
		go func() {
			be, err := newBackend(name)
			if err != nil {
				outcomes[i] <- outcome{err: err}
				return
			}
			res, err := Models(be, a, b, opts)
			if err != nil {
				var un *graph.UnsupportedOpError
				if !errors.As(err, &un) {
					err = fmt.Errorf("verifying on %s: %w", name, err)
				}
			}
			outcomes[i] <- outcome{res, err}
		}()
	}
	// Every runtime finishes before this returns: none goes on running
	// into what the caller does next (timing, say).
	done := make([]outcome, len(names))
	for i := range names {
		done[i] = <-outcomes[i]
	}
	for i, name := range names {
		res, err := done[i].res, done[i].err
		var un *graph.UnsupportedOpError
		if errors.As(err, &un) {
			out = append(out, RuntimeResult{Runtime: name, Skipped: un})
			continue
		}
		if err != nil {
			return out, err
		}
		ran = true
		out = append(out, RuntimeResult{Runtime: name, Result: res})
	}
	if !ran && len(names) > 0 {
		return out, fmt.Errorf("no runtime could run the models (tried %v): install ONNX Runtime with scripts/setup", names)
	}
	return out, nil
}
