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
	Candidates int
	// Applied is how often the rule appears on the path from the start to
	// the best graph.
	Applied int
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

// WriteRuleTable prints the per-rule statistics, rules applied first.
func (r *Result) WriteRuleTable(w io.Writer) error {
	names := make([]string, 0, len(r.Rules))
	for n := range r.Rules {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := r.Rules[names[i]], r.Rules[names[j]]
		if a.Applied != b.Applied {
			return a.Applied > b.Applied
		}
		if a.Candidates != b.Candidates {
			return a.Candidates > b.Candidates
		}
		return names[i] < names[j]
	})
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tAPPLIED\tCANDIDATES")
	for _, n := range names {
		s := r.Rules[n]
		fmt.Fprintf(tw, "%s\t%d\t%d\n", n, s.Applied, s.Candidates)
	}
	return tw.Flush()
}
