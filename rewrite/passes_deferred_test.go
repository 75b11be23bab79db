package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// countingCheck is SameFunction counting its calls.
func countingCheck(calls *int) Checker {
	return func(before, after *graph.Graph, tol float64) error {
		*calls++
		_, err := ruleverify.SameFunction(before, after, 2, 1, max(tol, 1e-9))
		return err
	}
}

// TestCandidatesDeferred checks that deferred candidates are those of
// Candidates, that a pass result is checked only when Verify is called,
// once, and that a failed Verify removes the result from what Candidates
// offers afterwards.
func TestCandidatesDeferred(t *testing.T) {
	wrong := Pass{Name: "wrong", Apply: swapFirstRelu}
	tests := []struct {
		name   string
		passes []Pass
		// offered is how many passes change the graph.
		offered int
		// verified lists the rules whose Verify must succeed; the others
		// must fail and be left out of Candidates afterwards.
		verified []string
	}{
		{name: "sound pass", passes: Passes, offered: 1, verified: []string{"prune-dead-rows"}},
		{name: "unsound pass", passes: []Pass{wrong}, offered: 1},
		{name: "both", passes: append([]Pass{wrong}, Passes...), offered: 2, verified: []string{"prune-dead-rows"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := pooledRows(t)
			calls := 0
			w := &WithPasses{Passes: tt.passes, Eval: executor.Evaluate, Check: countingCheck(&calls)}
			deferred, err := w.CandidatesDeferred(g)
			if err != nil {
				t.Fatal(err)
			}
			if calls != 0 {
				t.Fatalf("CandidatesDeferred checked %d results, want none", calls)
			}
			if len(deferred) != tt.offered {
				t.Fatalf("%d deferred candidates, want %d", len(deferred), tt.offered)
			}
			ok := map[string]bool{}
			for _, r := range tt.verified {
				ok[r] = true
			}
			for _, c := range deferred {
				if c.Verify == nil {
					t.Fatalf("%s: deferred candidate without Verify", c.Rule)
				}
				if c.Hash != c.Graph.CanonicalHash() {
					t.Errorf("%s: wrong hash", c.Rule)
				}
				if err := c.Verify(); (err == nil) != ok[c.Rule] {
					t.Errorf("%s: Verify returned %v, want success %v", c.Rule, err, ok[c.Rule])
				}
				c.Verify() // remembered: no second check
			}
			if calls != tt.offered {
				t.Errorf("%d checks for %d results", calls, tt.offered)
			}
			// Now every result is checked: both lists are the verified
			// ones, without Verify, and nothing is checked again.
			for _, list := range []func(*graph.Graph) ([]Candidate, error){w.Candidates, w.CandidatesDeferred} {
				cands, err := list(g.Clone())
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range cands {
					got = append(got, c.Rule)
					if c.Verify != nil {
						t.Errorf("%s: Verify left on a checked candidate", c.Rule)
					}
				}
				if len(got) != len(tt.verified) || (len(got) > 0 && got[0] != tt.verified[0]) {
					t.Errorf("after the checks: candidates %v, want %v", got, tt.verified)
				}
			}
			if calls != tt.offered {
				t.Errorf("%d checks for %d results after listing again", calls, tt.offered)
			}
		})
	}
}

// TestCandidatesDeferredPerGraph checks that the memo of deferred results
// is keyed by the graph: a pass's unchecked result for one graph is not
// offered, nor its check outcome reused, for another.
func TestCandidatesDeferredPerGraph(t *testing.T) {
	calls := 0
	w := &WithPasses{Passes: Passes, Eval: executor.Evaluate, Check: countingCheck(&calls)}
	a, b := pooledRows(t), pooledRowsSeeded(t, 2)
	if a.CanonicalHash() == b.CanonicalHash() {
		t.Fatal("the two test graphs are equal")
	}
	ca, err := w.CandidatesDeferred(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := ca[0].Verify(); err != nil {
		t.Fatal(err)
	}
	cb, err := w.CandidatesDeferred(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(cb) != 1 || cb[0].Verify == nil {
		t.Fatalf("the other graph's result: %d candidates, want one still to check", len(cb))
	}
	if cb[0].Hash == ca[0].Hash || cb[0].Hash != cb[0].Graph.CanonicalHash() {
		t.Errorf("the other graph was offered the first graph's result")
	}
	if err := cb[0].Verify(); err != nil || calls != 2 {
		t.Errorf("checking the other graph's result: %v after %d checks, want success after 2", err, calls)
	}
}
