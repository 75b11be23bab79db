package pipeline

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/measure/goexec"
	"github.com/xrl-dev/xrl/nodecost"
)

// objectiveModel returns the scorer the search or agent minimises for
// objective: the latency model called latency, the executor's planned
// peak memory (measure.MemoryObjective), or both combined
// (measure.Combined).
func objectiveModel(objective, latency string, ms Measurement) (measure.LatencyModel, error) {
	switch objective {
	case "", measure.ObjectiveLatency:
		if latency == "cost" {
			return newCostLatency(ms)
		}
		return measure.NewLatencyModel(latency, ms.Backend, ms.Measure)
	case measure.ObjectiveMemory:
		return measure.Cached(measure.MemoryObjective{Memory: goexec.MemoryModel{}}), nil
	case measure.ObjectiveBoth:
		lm, err := measure.NewLatencyModel(latency, ms.Backend, ms.Measure)
		if err != nil {
			return nil, err
		}
		return measure.Cached(measure.Combined{Time: lm, Memory: goexec.MemoryModel{}}), nil
	}
	return nil, fmt.Errorf("unknown objective %q (want %s)", objective, strings.Join(measure.Objectives, ", "))
}

// costLatency is the cost model behind a cache (as
// measure.NewLatencyModel("cost") returns it) that sums node times a
// nodecost.Timer remembers, so that graphs sharing nodes are summed
// without timing the shared nodes again, and that offers that per-node
// view to searches and the environment (search.Problem.NodeTimes,
// env.Config.NodeTimes).
type costLatency struct {
	measure.HashedLatencyModel
	nodes *nodecost.Timer
	cm    *measure.CostModel
}

// CostThreads is the intra-op threads the cost model times each op at.
// On a 2-core machine whose two-thread latency changes mode for seconds
// at a time (the same BERT session ran at 3.44 or 4.77 ms), ops timed at
// two threads carried that mode into their costs: five rollouts of the
// built-in agent on the HF-style BERT reached cost-model speedups of
// 1.12-1.59x and written models of 1.08-1.30x. Timed at one thread (5.07-
// 5.10 ms, 0.3% spread), the rollouts reached 1.41-1.45x and the written
// models 1.29-1.30x. The cost model only ranks rewrites; what is written
// is timed at the run's own threads.
const CostThreads = 1

func newCostLatency(ms Measurement) (measure.LatencyModel, error) {
	ms.Backend.Threads = CostThreads
	cm, err := measure.NewCostModel(measure.CostOptions{Backend: ms.Backend, CacheFile: ms.CostCache})
	if err != nil {
		return nil, err
	}
	timer := nodecost.NewTimer(cm)
	cached, ok := measure.Cached(nodeSum{timer, cm.Name()}).(measure.HashedLatencyModel)
	if !ok {
		return nil, fmt.Errorf("the cost model's cache does not take known hashes")
	}
	return costLatency{cached, timer, cm}, nil
}

// saveCostCache writes the cost model's op times to its cache file
// (Measurement.CostCache) when lm is the cost model; other models have
// none.
func saveCostCache(lm measure.LatencyModel) error {
	c, ok := lm.(costLatency)
	if !ok {
		return nil
	}
	if err := c.cm.Save(); err != nil {
		return fmt.Errorf("saving the cost model's op times: %w", err)
	}
	return nil
}

// nodeSum is a latency model summing a Timer's node times.
type nodeSum struct {
	t    *nodecost.Timer
	name string
}

func (s nodeSum) Name() string { return s.name }

func (s nodeSum) Latency(m *graph.Model) (measure.Stats, error) {
	d, err := s.t.Latency(m)
	if err != nil {
		return measure.Stats{}, err
	}
	return measure.Stats{N: len(m.Graph.Nodes), Median: d, P10: d, P90: d, Min: d, Stable: true}, nil
}

// nodeTimes returns lm's per-node view, or nil.
func nodeTimes(lm measure.LatencyModel) *nodecost.Timer {
	if c, ok := lm.(costLatency); ok {
		return c.nodes
	}
	return nil
}

// ReportMemory prints the planned peak memory (the Go executor's plan:
// constants plus intermediate buffers) of the original and the written
// model. Models the executor cannot compile are reported as such.
func ReportMemory(w io.Writer, before, after *graph.Model) error {
	_, err := fmt.Fprintln(w, plannedMemory(before, after))
	return err
}

// reportObjective prints the result of a memory or combined objective:
// the ratio of the start's score to the best's and the planned peak
// memory of both graphs, which it returns (0 when the executor cannot
// plan them).
func reportObjective(w io.Writer, objective string, start, best *graph.Graph, initial, bestScore time.Duration) (a, b measure.Bytes) {
	if best == nil {
		best = start
	}
	ratio := float64(initial) / float64(bestScore)
	ma, errA := goexec.MemoryModel{}.Memory(&graph.Model{Graph: start})
	mb, errB := goexec.MemoryModel{}.Memory(&graph.Model{Graph: best})
	if errA == nil && errB == nil {
		a, b = ma, mb
	}
	mem := "not available"
	if a > 0 && b > 0 {
		mem = fmt.Sprintf("%v -> %v", a, b)
	}
	if objective == measure.ObjectiveMemory {
		fmt.Fprintf(w, "memory objective (planned peak memory of the searched graph): %s (%.3fx)\n", mem, ratio)
	} else {
		fmt.Fprintf(w, "%s objective: %.3fx (geometric mean of the latency and memory ratios); planned peak memory %s\n", objective, ratio, mem)
	}
	return a, b
}

// scorerName describes what lm scores, for progress lines.
func scorerName(lm measure.LatencyModel) string {
	switch n := lm.Name(); n {
	case goexec.MemoryName:
		return "planned peak memory"
	default:
		if strings.Contains(n, "+") {
			return "the geometric mean of " + strings.Replace(n, "+", " latency and planned ", 1)
		}
		return n + " latency"
	}
}

// scoreString formats score, lm's score of m: the planned memory when lm
// measures memory (its Stats.Bytes; lm is cached, so this costs no new
// measurement), the time otherwise.
func scoreString(lm measure.LatencyModel, m *graph.Model, score time.Duration) string {
	if lm.Name() != goexec.MemoryName {
		return score.Round(time.Microsecond).String()
	}
	if m == nil || m.Graph == nil {
		return fmt.Sprintf("score %d", int64(score))
	}
	st, err := lm.Latency(m)
	if err != nil || st.Bytes <= 0 {
		return fmt.Sprintf("score %d", int64(score))
	}
	return st.Bytes.String()
}
