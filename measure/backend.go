package measure

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// Backend loads models for execution on one engine (the Go executor, ONNX
// Runtime, a cost model ...).
type Backend interface {
	// Name is the identifier used by --runtime ("go", "ort", "cost").
	Name() string
	// Load prepares m for repeated runs. m must have static, inferred
	// shapes (graph.Graph.BindShapes).
	Load(m *graph.Model) (Session, error)
}

// Session runs one loaded model.
type Session interface {
	// Run executes the model on inputs keyed by graph input name and
	// returns the outputs keyed by graph output name.
	Run(inputs map[string]*graph.Tensor) (map[string]*graph.Tensor, error)
	// Close releases the session's resources.
	Close() error
}

// Discarder is implemented by sessions that can run without handing the
// outputs back (no copy into Go memory). Latency measurement uses it, so
// that the time measured is the engine's own work.
type Discarder interface {
	RunDiscard(inputs map[string]*graph.Tensor) error
}

// TimedRunner is implemented by sessions that time their runs
// themselves: RunTimed runs once, discarding the outputs, and returns the
// wall time of the engine's run call alone, the inputs' conversion before
// it and the outputs' release after it left out (what a user's call into
// the runtime takes, and what scripts/check-speedup times). Timed around
// them, a fixed Go-side cost was added to every run of both models,
// which pulls the ratio of a sub-millisecond pair towards 1.
type TimedRunner interface {
	RunTimed(inputs map[string]*graph.Tensor) (time.Duration, error)
}

// timedRun runs s once, discarding the outputs, and returns the wall time
// of the run: s's own figure when it is a TimedRunner, else the time of
// runForTiming.
func timedRun(s Session, inputs map[string]*graph.Tensor) (time.Duration, error) {
	if t, ok := s.(TimedRunner); ok {
		return t.RunTimed(inputs)
	}
	t0 := now()
	err := runForTiming(s, inputs)
	return now().Sub(t0), err
}

// runForTiming runs s once, discarding the outputs.
func runForTiming(s Session, inputs map[string]*graph.Tensor) error {
	if d, ok := s.(Discarder); ok {
		return d.RunDiscard(inputs)
	}
	_, err := s.Run(inputs)
	return err
}

// BackendFactory makes a backend from common options.
type BackendFactory func(opts BackendOptions) (Backend, error)

// BackendOptions are settings shared by all backends.
type BackendOptions struct {
	// Threads bounds intra-op parallelism; 0 means the machine's cores.
	Threads int
	// OptLevel is ONNX Runtime's graph optimisation level: "all" (the
	// default, what users deploy with), "extended", "basic" or "disable".
	// Other backends ignore it.
	OptLevel string
}

var backends = map[string]BackendFactory{}

// RegisterBackend makes a backend available to NewBackend under name.
func RegisterBackend(name string, f BackendFactory) {
	if _, dup := backends[name]; dup {
		panic("measure: backend " + name + " registered twice")
	}
	backends[name] = f
}

// BackendNames returns the registered backend names, sorted.
func BackendNames() []string {
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NewBackend returns the backend called name.
func NewBackend(name string, opts BackendOptions) (Backend, error) {
	f, ok := backends[name]
	if !ok {
		return nil, fmt.Errorf("unknown runtime %q (available: %s)", name, strings.Join(BackendNames(), ", "))
	}
	return f(opts)
}
