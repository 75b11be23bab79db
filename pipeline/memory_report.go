package pipeline

import (
	"fmt"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// MemoryReport is the planned peak memory (the Go executor's plan:
// constants plus intermediate buffers) of the original and the written
// model.
type MemoryReport struct {
	// Available is false when the executor cannot plan one of the models.
	Available bool          `json:"available"`
	Before    MemoryFigures `json:"before"`
	After     MemoryFigures `json:"after"`
}

// MemoryFigures splits one model's planned peak memory.
type MemoryFigures struct {
	Total         measure.Bytes `json:"total_bytes"`
	Weights       measure.Bytes `json:"weights_bytes"`
	Intermediates measure.Bytes `json:"intermediates_bytes"`
}

// plannedMemory plans the memory of before and after.
func plannedMemory(before, after *graph.Model) MemoryReport {
	a, errA := executor.PlannedMemory(before.Graph)
	b, errB := executor.PlannedMemory(after.Graph)
	if errA != nil || errB != nil {
		return MemoryReport{}
	}
	figures := func(p executor.Memory) MemoryFigures {
		return MemoryFigures{Total: measure.Bytes(p.Total()), Weights: measure.Bytes(p.Weights), Intermediates: measure.Bytes(p.Intermediates)}
	}
	return MemoryReport{Available: true, Before: figures(a), After: figures(b)}
}

// String formats the report on one line.
func (m MemoryReport) String() string {
	if !m.Available {
		return "planned memory: not available (the Go executor cannot plan this model)"
	}
	return fmt.Sprintf("planned peak memory: %v -> %v (%.3fx; weights %v -> %v, intermediates %v -> %v)",
		m.Before.Total, m.After.Total, float64(m.Before.Total)/float64(max(m.After.Total, 1)),
		m.Before.Weights, m.After.Weights, m.Before.Intermediates, m.After.Intermediates)
}
