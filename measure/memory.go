package measure

import "github.com/xrl-dev/xrl/graph"

// MemoryModel gives the memory a model needs for inference, in Bytes: the
// scorer of the memory objective, as LatencyModel is the scorer of the
// latency objective. The Go executor's planned peak memory (package
// measure/goexec) is one.
type MemoryModel interface {
	// Name identifies the model for reports and cache keys ("memory").
	Name() string
	// Memory returns the memory m needs; m must have static shapes.
	Memory(m *graph.Model) (Bytes, error)
}
