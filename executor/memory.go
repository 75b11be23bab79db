package executor

import (
	"fmt"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// Memory is the memory a model needs for inference as the executor plans
// it: its constants (weights and other initializers, Constant-node data)
// and the intermediate buffers of the liveness plan, scratch included.
type Memory struct {
	Weights       int64
	Intermediates int64
}

// Total returns Weights + Intermediates, the planned peak.
func (m Memory) Total() int64 { return m.Weights + m.Intermediates }

// PlannedMemory compiles g (static shapes) and returns its planned memory.
// Nothing is run.
func PlannedMemory(g *graph.Graph) (Memory, error) {
	ex, err := NewExecutor(g, ExecOptions{Threads: 1})
	if err != nil {
		return Memory{}, err
	}
	var mem Memory
	seen := map[*graph.Tensor]bool{}
	addConst := func(t *graph.Tensor) {
		if t != nil && !seen[t] {
			seen[t] = true
			mem.Weights += int64(t.Len()) * int64(max(t.DType.Size(), 1))
		}
	}
	for _, v := range g.Initializers {
		addConst(v.Const)
	}
	for _, n := range g.Nodes {
		for _, v := range n.Inputs {
			if v != nil {
				addConst(v.Const)
			}
		}
	}
	mem.Intermediates = ex.PeakBytes()
	return mem, nil
}

// MemoryModel scores models by planned peak memory (PlannedMemory's
// Total) behind the measure.LatencyModel interface, so that the
// environment's rewards and the searches can minimise memory unchanged.
// Its figures are bytes carried as time.Duration, one nanosecond per byte:
// only ratios are meaningful, and reports convert them back (MemoryBytes).
type MemoryModel struct{}

// MemoryObjectiveName is MemoryModel's Name.
const MemoryObjectiveName = "memory"

// Name implements measure.LatencyModel.
func (MemoryModel) Name() string { return MemoryObjectiveName }

// Latency implements measure.LatencyModel: every statistic is the planned
// peak memory, in bytes as nanoseconds.
func (MemoryModel) Latency(m *graph.Model) (measure.Stats, error) {
	mem, err := PlannedMemory(m.Graph)
	if err != nil {
		return measure.Stats{}, fmt.Errorf("planning memory: %w", err)
	}
	d := time.Duration(mem.Total())
	return measure.Stats{N: 1, Median: d, P10: d, P90: d, Min: d, Stable: true}, nil
}

// MemoryBytes converts a MemoryModel figure back to bytes.
func MemoryBytes(d time.Duration) int64 { return int64(d) }
