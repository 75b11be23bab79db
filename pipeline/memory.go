package pipeline

import (
	"fmt"

	"github.com/xrl-dev/xrl/internal/sysmem"
)

// Memory an optimisation run holds per node of the model, measured on the
// 50,000-node residual MLP (docs/perf.md, "Graphs of 50,000 nodes") and
// rounded up: the graph, its index, digests and encodings (perNode); what
// each expanded graph of a best-first or greedy search keeps, its digests
// and its lazy candidates (perNodeStep, times the search budget); what
// each candidate an agent is shown costs, built and encoded
// (perNodeShown, times the candidates shown).
const (
	perNode      = 8 << 10
	perNodeStep  = 1200
	perNodeShown = 200
)

// estimateBytes returns the memory cfg's run is expected to need on a
// model of nodes nodes, and a description of the run for messages.
func estimateBytes(cfg Config, nodes int, shown int) (int64, string) {
	n := int64(nodes)
	if cfg.Agent != "" && cfg.Search != "brkga" {
		return n * (perNode + perNodeShown*int64(shown)), fmt.Sprintf("an agent shown %d candidates a step", shown)
	}
	budget := cfg.SearchOptions.Budget
	if budget <= 0 {
		budget = 100
	}
	alg := cfg.Search
	if alg == "" {
		alg = "taso"
	}
	return n * (perNode + perNodeStep*int64(budget)), fmt.Sprintf("%s search with budget %d", alg, budget)
}

// checkMemory refuses, before any search or rollout, a run on s that would
// need more memory than is available (sysmem.Available), naming the model,
// the estimate and the memory at hand.
func checkMemory(cfg Config, s *Start) error {
	shown := 0
	if cfg.Agent != "" {
		_, pcfg, err := LoadPolicy(cfg.Agent)
		if err != nil {
			return err
		}
		shown = pcfg.MaxCandidates
	}
	need, run := estimateBytes(cfg, len(s.Model.Graph.Nodes), shown)
	return sysmem.CheckBytes(need, fmt.Sprintf("optimising %s (%d nodes, %s)", s.Name, len(s.Model.Graph.Nodes), run))
}
