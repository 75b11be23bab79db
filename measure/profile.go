package measure

import (
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// Profiler is implemented by backends that can time every node of a model
// inside one optimised session (ONNX Runtime's own profiler), so that the
// times include the engine's fusions, layout changes and memory planning.
type Profiler interface {
	// Profile loads m, runs it warmup times untimed and runs times under
	// the profiler, and returns the per-node times of the least disturbed
	// runs.
	Profile(m *graph.Model, warmup, runs int) (*Profile, error)
}

// Profile is one profiled session of a model.
type Profile struct {
	// Total is the end-to-end time of one run of the session.
	Total time.Duration
	// Nodes holds the time of each node the engine executed, in the
	// engine's naming: a node the engine fused out of several of the
	// model's nodes carries one of their names with a suffix, or a name
	// of its own.
	Nodes []NodeTime
}

// NodeTime is one executed node's time per run.
type NodeTime struct {
	// Name is the engine's node name; Op its operator.
	Name, Op string
	Time     time.Duration
}

// Sum returns the summed node times.
func (p *Profile) Sum() time.Duration {
	var s time.Duration
	for _, n := range p.Nodes {
		s += n.Time
	}
	return s
}
