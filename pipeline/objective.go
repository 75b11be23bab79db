package pipeline

import (
	"fmt"
	"io"
	"strings"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// objectiveModel returns the scorer the search or agent minimises for
// objective: the latency model called latency, the executor's planned
// peak memory, or both combined (measure.Combined).
func objectiveModel(objective, latency string, ms Measurement) (measure.LatencyModel, error) {
	switch objective {
	case "", measure.ObjectiveLatency:
		return measure.NewLatencyModel(latency, ms.Backend, ms.Measure)
	case measure.ObjectiveMemory:
		return measure.Cached(executor.MemoryModel{}), nil
	case measure.ObjectiveBoth:
		lm, err := measure.NewLatencyModel(latency, ms.Backend, ms.Measure)
		if err != nil {
			return nil, err
		}
		return measure.Cached(measure.Combined{A: lm, B: executor.MemoryModel{}}), nil
	}
	return nil, fmt.Errorf("unknown objective %q (want %s)", objective, strings.Join(measure.Objectives, ", "))
}

// ReportMemory prints the planned peak memory (the Go executor's plan:
// constants plus intermediate buffers) of the original and the written
// model. Models the executor cannot compile are reported as such.
func ReportMemory(w io.Writer, before, after *graph.Model) error {
	a, errA := executor.PlannedMemory(before.Graph)
	b, errB := executor.PlannedMemory(after.Graph)
	if errA != nil || errB != nil {
		fmt.Fprintf(w, "planned memory: not available (the Go executor cannot plan this model)\n")
		return nil
	}
	fmt.Fprintf(w, "planned peak memory: %s -> %s (%.3fx; weights %s -> %s, intermediates %s -> %s)\n",
		mib(a.Total()), mib(b.Total()), float64(a.Total())/float64(max(b.Total(), 1)),
		mib(a.Weights), mib(b.Weights), mib(a.Intermediates), mib(b.Intermediates))
	return nil
}

func mib(n int64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }

// scorerName describes what lm scores, for progress lines.
func scorerName(lm measure.LatencyModel) string {
	switch n := lm.Name(); n {
	case executor.MemoryObjectiveName:
		return "planned peak memory"
	default:
		if strings.Contains(n, "+") {
			return "the geometric mean of " + strings.Replace(n, "+", " latency and planned ", 1) + " memory"
		}
		return n + " latency"
	}
}
