package goexec

import (
	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// BackendName is the name under which the Go executor is registered as a
// measurement backend (`--runtime go`).
const BackendName = "go"

func init() {
	measure.RegisterBackend(BackendName, func(opts measure.BackendOptions) (measure.Backend, error) {
		return &Backend{Threads: opts.Threads}, nil
	})
}

// Backend runs models on the pure-Go executor; it implements
// measure.Backend.
type Backend struct {
	// Threads bounds intra-op parallelism; 0 means the machine's cores.
	Threads int
	// Precision is the executor's float type (executor.ExecOptions):
	// zero or graph.Float32, or graph.Float64 as rule verification runs.
	Precision graph.DType
}

// Name implements measure.Backend.
func (b *Backend) Name() string { return BackendName }

// Load implements measure.Backend: it compiles m for repeated runs. A node
// the executor does not implement fails with *graph.UnsupportedOpError.
func (b *Backend) Load(m *graph.Model) (measure.Session, error) {
	ex, err := executor.NewExecutor(m.Graph, executor.ExecOptions{Threads: b.Threads, Precision: b.Precision})
	if err != nil {
		return nil, err
	}
	return session{ex}, nil
}

// session adapts an Executor to measure.Session.
type session struct{ ex *executor.Executor }

func (s session) Run(in map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	return s.ex.Run(in)
}

func (s session) Close() error { return nil }
