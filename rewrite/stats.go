package rewrite

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Stats reports one candidate generation.
type Stats struct {
	// Nodes is the input graph's node count; Workers the goroutines used.
	Nodes, Workers int
	// Rules holds one entry per engine rule, in rule order.
	Rules []RuleStats
	// Matches and Candidates are the totals over the rules.
	Matches, Candidates int
	// Pruned is the total of RuleStats.Pruned.
	Pruned int
	// Incremental says the graph was built from a candidate of one of the
	// engine's recent generations and its rules were matched again only
	// near the Near nodes that rewrite changed, the other matches carried
	// over (see incremental.go).
	Incremental bool
	Near        int
	// Fold sums the folding done in the candidates.
	Fold FoldStats
	// MemoHits and MemoMisses count the folds served by the engine's fold
	// memo and those computed.
	MemoHits, MemoMisses int
	// MatchTime is the wall time of matching (serial). ApplyWall is the
	// wall time of applying and hashing (parallel); ApplyTime and HashTime
	// are the times the workers spent building (and folding) candidates
	// and hashing them, summed over workers (HashTime includes the input
	// graph's hash). Total is the wall time of the call.
	MatchTime, ApplyWall, ApplyTime, HashTime, Total time.Duration
}

// RuleStats reports one rule's share of a candidate generation.
type RuleStats struct {
	Rule string
	// Matches counts the matches found (after the external-use check).
	Matches int
	// Candidates counts the candidates kept.
	Candidates int
	// Rejected counts matches and rewrites dropped, by reason.
	Rejected map[Reject]int
	// Pruned counts the nodes a pair rule's scan skipped because they lie
	// on one path with a node already matched (the rewrite would make a
	// cycle; such pairs are neither matches nor rejections).
	Pruned int
	// MatchTime is the time spent matching this rule.
	MatchTime time.Duration
}

// Rejected returns the total of rejections for reason over all rules.
func (s Stats) Rejected(reason Reject) int {
	n := 0
	for _, r := range s.Rules {
		n += r.Rejected[reason]
	}
	return n
}

// WriteCandidateTable writes the per-rule table of `xrl inspect MODEL
// --candidates`: for every rule with at least one match (or rejection),
// its matches, candidates kept and rejections by reason, then totals and
// timings.
func WriteCandidateTable(w io.Writer, st Stats) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tMATCHES\tCANDIDATES\tREJECTED")
	for _, r := range st.Rules {
		if r.Matches == 0 && len(r.Rejected) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", r.Rule, r.Matches, r.Candidates, formatRejects(r.Rejected))
	}
	all := map[Reject]int{}
	for _, r := range st.Rules {
		for k, v := range r.Rejected {
			all[k] += v
		}
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%s\n", st.Matches, st.Candidates, formatRejects(all))
	if err := tw.Flush(); err != nil {
		return err
	}
	if st.Pruned > 0 {
		if _, err := fmt.Fprintf(w, "pair scans skipped %d nodes on one path with the first node (the rewrite would make a cycle)\n", st.Pruned); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "graph: %d nodes; time: %v (match %v, apply+hash %v wall on %d workers: apply %v, hash %v); folding: %v; fold memo: %d hits, %d misses\n",
		st.Nodes, round(st.Total), round(st.MatchTime), round(st.ApplyWall), st.Workers, round(st.ApplyTime), round(st.HashTime), st.Fold, st.MemoHits, st.MemoMisses)
	return err
}

// formatRejects formats rejection counts as "cycle=2 duplicate=1", sorted
// by reason, or "-".
func formatRejects(m map[Reject]int) string {
	var parts []string
	for k, v := range m {
		if v > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, v))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
