package goexec

import (
	"fmt"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// MemoryName is MemoryModel's Name.
const MemoryName = measure.ObjectiveMemory

// MemoryModel scores models by the executor's planned peak memory
// (executor.PlannedMemory's Total); it implements measure.MemoryModel.
// Nothing is run.
type MemoryModel struct{}

// Name implements measure.MemoryModel.
func (MemoryModel) Name() string { return MemoryName }

// Memory implements measure.MemoryModel: the planned peak memory of m.
func (MemoryModel) Memory(m *graph.Model) (measure.Bytes, error) {
	mem, err := executor.PlannedMemory(m.Graph)
	if err != nil {
		return 0, fmt.Errorf("planning memory: %w", err)
	}
	return measure.Bytes(mem.Total()), nil
}
