package rewrite

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// matchKey identifies a match by its graph nodes and values.
func matchKey(m *rules.Match) string {
	var b strings.Builder
	for _, n := range m.Nodes {
		fmt.Fprintf(&b, "%p,", n)
	}
	b.WriteByte('|')
	for _, v := range m.Values {
		fmt.Fprintf(&b, "%p,", v)
	}
	return b.String()
}

// compareMatches checks that the fast matcher finds exactly the matches of
// the reference matcher for every rule of set in g.
func compareMatches(t *testing.T, what string, set *rules.Set, g *graph.Graph) int {
	t.Helper()
	gx, err := newIndex(g)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	ix := rules.NewIndex(g)
	total := 0
	for _, r := range set.Rules {
		want := map[string]bool{}
		for _, m := range ix.FindMatches(r) {
			want[matchKey(m)] = true
		}
		got := map[string]bool{}
		fs, _ := findMatches(gx, prepareRule(r))
		for _, f := range fs {
			k := matchKey(f.m)
			if got[k] {
				t.Errorf("%s: rule %s: match found twice: %s", what, r.Name, describe(f.m))
			}
			got[k] = true
		}
		total += len(got)
		var missing, extra []string
		for k := range want {
			if !got[k] {
				missing = append(missing, k)
			}
		}
		for k := range got {
			if !want[k] {
				extra = append(extra, k)
			}
		}
		sort.Strings(missing)
		sort.Strings(extra)
		if len(missing)+len(extra) > 0 {
			t.Errorf("%s: rule %s: fast matcher finds %d matches, reference %d (%d missing, %d extra)",
				what, r.Name, len(got), len(want), len(missing), len(extra))
		}
	}
	return total
}

// describe names a match's nodes.
func describe(m *rules.Match) string {
	var parts []string
	for _, n := range m.Nodes {
		parts = append(parts, n.Name)
	}
	return strings.Join(parts, ", ")
}
