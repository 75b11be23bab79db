package search

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// Stop reasons.
const (
	StopNoImprovement = "no improvement"  // greedy: no candidate is faster
	StopNoCandidates  = "no candidates"   // the graph has no rewrite left
	StopQueueEmpty    = "queue exhausted" // best-first: nothing left under alpha x best
	StopBudget        = "budget"          // the step/pop budget is spent
	StopTimeLimit     = "time limit"
)

// RuleUse counts what one rule did during a run.
type RuleUse struct {
	// Candidates is how many candidates the rule produced (over every
	// expanded graph), less those that failed a deferred check (a pass
	// result queued by TASO search and never popped counts unchecked).
	Candidates int `json:"candidates,omitempty"`
	// Applied is how often the rule appears on the path from the start to
	// the best graph.
	Applied int `json:"applied"`
}

// RuleStat is one rule's row of a run's per-rule statistics.
type RuleStat struct {
	Name string `json:"name"`
	RuleUse
}

// Result reports a search run.
type Result struct {
	Algorithm string
	// Best is the fastest graph found (the start graph if none was faster).
	Best *graph.Graph
	// InitialLatency and BestLatency are under the run's latency model.
	InitialLatency, BestLatency time.Duration
	// Path lists the rules applied, in order, from the start to Best.
	Path []string
	// Steps is the number of graphs expanded (greedy/random: steps taken;
	// best-first: queue pops).
	Steps int
	// Evaluations is the number of latency queries.
	Evaluations int
	StopReason  string
	Elapsed     time.Duration
	// Rules holds per-rule statistics.
	Rules map[string]*RuleUse
}

// Speedup returns InitialLatency / BestLatency.
func (r *Result) Speedup() float64 {
	return measure.Speedup(r.InitialLatency, r.BestLatency)
}

func (r *Result) rule(name string) *RuleUse {
	if r.Rules == nil {
		r.Rules = make(map[string]*RuleUse)
	}
	s, ok := r.Rules[name]
	if !ok {
		s = &RuleUse{}
		r.Rules[name] = s
	}
	return s
}

func (r *Result) setPath(path []string) {
	r.Path = append([]string(nil), path...)
	for _, s := range r.Rules {
		s.Applied = 0
	}
	for _, p := range path {
		r.rule(p).Applied++
	}
}

// RuleStats returns the per-rule statistics in the order of the rule
// table: rules applied most first, then by candidates, then by name.
func (r *Result) RuleStats() []RuleStat {
	stats := make([]RuleStat, 0, len(r.Rules))
	for n, u := range r.Rules {
		stats = append(stats, RuleStat{Name: n, RuleUse: *u})
	}
	sort.Slice(stats, func(i, j int) bool {
		a, b := stats[i], stats[j]
		if a.Applied != b.Applied {
			return a.Applied > b.Applied
		}
		if a.Candidates != b.Candidates {
			return a.Candidates > b.Candidates
		}
		return a.Name < b.Name
	})
	return stats
}

// WriteRuleTable prints the per-rule statistics, rules applied first.
func (r *Result) WriteRuleTable(w io.Writer) error { return WriteRuleStats(w, r.RuleStats()) }

// WriteRuleStats prints stats as an aligned table with the columns RULE,
// APPLIED and CANDIDATES, in the given order.
func WriteRuleStats(w io.Writer, stats []RuleStat) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tAPPLIED\tCANDIDATES")
	for _, s := range stats {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", s.Name, s.Applied, s.Candidates)
	}
	return tw.Flush()
}
