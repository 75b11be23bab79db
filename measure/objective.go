package measure

import (
	"fmt"
	"math"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// Objectives that optimisation can minimise (`--objective`).
//
// The searches and the environment rank graphs by a LatencyModel's
// Stats.Median. The latency objective hands them a latency model; the
// memory and both objectives hand them MemoryObjective and Combined, the
// only places where a MemoryModel's Bytes become a score (MemoryScore).
const (
	ObjectiveLatency = "latency"
	ObjectiveMemory  = "memory"
	ObjectiveBoth    = "both"
)

// Objectives lists the objective names.
var Objectives = []string{ObjectiveLatency, ObjectiveMemory, ObjectiveBoth}

// Cached wraps lm so that every graph is scored once (by canonical hash).
func Cached(lm LatencyModel) LatencyModel {
	if c, ok := lm.(*cachedLatency); ok {
		return c
	}
	return &cachedLatency{inner: lm, cache: make(map[graph.Hash]Stats)}
}

// MemoryScore is the score under which MemoryObjective ranks a model that
// needs b: one unit per byte. It orders graphs and its ratios are memory
// ratios; it is not a time.
func MemoryScore(b Bytes) time.Duration { return time.Duration(b) }

// MemoryObjective scores models by Memory's figure for the searches and
// the environment. Its Stats carry the memory in Bytes; Median (and Min,
// P10, P90) hold MemoryScore of it.
type MemoryObjective struct {
	Memory MemoryModel
}

// Name implements LatencyModel: Memory's name.
func (o MemoryObjective) Name() string { return o.Memory.Name() }

// Latency implements LatencyModel with m's memory score.
func (o MemoryObjective) Latency(m *graph.Model) (Stats, error) {
	b, err := o.Memory.Memory(m)
	if err != nil {
		return Stats{}, err
	}
	d := MemoryScore(b)
	return Stats{N: 1, Median: d, P10: d, P90: d, Min: d, Stable: true, Bytes: b}, nil
}

// Combined scores a model by the geometric mean of its latency and its
// memory score, so that a ratio of two Combined scores is the geometric
// mean of the latency and memory ratios: a 10% latency gain weighs as
// much as a 10% memory gain. With the X-RLflow reward, which divides
// differences by the start's score, both objectives count equally
// whatever their units.
type Combined struct {
	// Time scores the latency, Memory the memory.
	Time   LatencyModel
	Memory MemoryModel
}

// Name implements LatencyModel ("latency+memory" of the two models' names).
func (c Combined) Name() string { return c.Time.Name() + "+" + c.Memory.Name() }

// Latency implements LatencyModel; only Median (and Min, P10, P90, set to
// it) is meaningful, and Bytes is the memory figure.
func (c Combined) Latency(m *graph.Model) (Stats, error) {
	a, err := c.Time.Latency(m)
	if err != nil {
		return Stats{}, err
	}
	b, err := c.Memory.Memory(m)
	if err != nil {
		return Stats{}, err
	}
	if a.Median <= 0 || b <= 0 {
		return Stats{}, fmt.Errorf("combined objective: non-positive latency %v (%s) or memory %d bytes (%s)", a.Median, c.Time.Name(), int64(b), c.Memory.Name())
	}
	d := time.Duration(math.Sqrt(float64(a.Median)) * math.Sqrt(float64(MemoryScore(b))))
	return Stats{N: 1, Median: d, P10: d, P90: d, Min: d, Stable: a.Stable, Bytes: b}, nil
}
