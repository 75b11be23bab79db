package measure

import (
	"fmt"
	"sort"
	"strings"

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
