package executor

import (
	"fmt"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// Memory is the memory a model needs for inference as the executor plans
// it: the constants it holds (initializers and Constant-node data, and
// the values of nodes it folds when it compiles the graph, such as a
// Transpose of a weight, in its execution dtypes) and the intermediate
// buffers of the liveness plan, scratch included.
type Memory struct {
	Weights       int64
	Intermediates int64
}

// Total returns Weights + Intermediates, the planned peak.
func (m Memory) Total() int64 { return m.Weights + m.Intermediates }

// PlannedMemory compiles g (static shapes) and returns its planned memory.
// Nothing is run. Counting the compile-time folded values makes a graph
// and its constant-folded form (rewrite.Fold) comparable: both hold the
// same data once compiled.
func PlannedMemory(g *graph.Graph) (Memory, error) {
	ex, err := NewExecutor(g, ExecOptions{Threads: 1})
	if err != nil {
		return Memory{}, err
	}
	return Memory{Weights: ex.ConstBytes(), Intermediates: ex.PeakBytes()}, nil
}

// MemoryModel scores models by planned peak memory (PlannedMemory's
// Total) behind the measure.LatencyModel interface, so that the
// environment's rewards and the searches can minimise memory unchanged.
// Its Stats carry the memory in Bytes; Median (and Min, P10, P90) hold
// the same figure as a score, Bytes.Score(), which only ranks graphs.
type MemoryModel struct{}

// MemoryObjectiveName is MemoryModel's Name.
const MemoryObjectiveName = "memory"

// Name implements measure.LatencyModel.
func (MemoryModel) Name() string { return MemoryObjectiveName }

// Latency implements measure.LatencyModel: Bytes is the planned peak
// memory and every time statistic its score.
func (MemoryModel) Latency(m *graph.Model) (measure.Stats, error) {
	mem, err := PlannedMemory(m.Graph)
	if err != nil {
		return measure.Stats{}, fmt.Errorf("planning memory: %w", err)
	}
	b := measure.Bytes(mem.Total())
	d := b.Score()
	return measure.Stats{N: 1, Median: d, P10: d, P90: d, Min: d, Stable: true, Bytes: b}, nil
}

// MemoryBytes reads a MemoryModel score (a Stats time statistic) back as
// bytes; new code reads Stats.Bytes.
func MemoryBytes(d time.Duration) int64 { return int64(d) }
