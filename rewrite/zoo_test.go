package rewrite

import (
	"sync"
	"testing"

	"github.com/xrl-dev/xrl/executor"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/rules"
)

var (
	setOnce sync.Once
	ruleSet *rules.Set
	setErr  error
)

// shippedRules loads the embedded rule set once.
func shippedRules(t testing.TB) *rules.Set {
	t.Helper()
	setOnce.Do(func() { ruleSet, setErr = rules.Load() })
	if setErr != nil {
		t.Fatal(setErr)
	}
	return ruleSet
}

// shippedCandidates returns the candidates of the shipped rule named
// rule on g.
func shippedCandidates(t testing.TB, g *graph.Graph, rule string) []Candidate {
	t.Helper()
	cands, err := NewEngine(shippedRules(t), Options{Rules: []string{rule}, Eval: executor.Evaluate}).Candidates(g)
	if err != nil {
		t.Fatal(err)
	}
	return cands
}

// zooGraph builds a zoo model at the cpu preset.
func zooGraph(t testing.TB, name string) *graph.Graph {
	t.Helper()
	m, err := models.Build(name, models.PresetCPU, models.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	return m.Graph
}

// TestMatcherAgreesOnZoo compares the fast matcher with the reference
// matcher on every zoo model (cpu preset).
func TestMatcherAgreesOnZoo(t *testing.T) {
	set := shippedRules(t)
	for _, name := range models.Names() {
		t.Run(name, func(t *testing.T) {
			n := compareMatches(t, name, set, zooGraph(t, name))
			t.Logf("%s: %d matches", name, n)
		})
	}
}

// TestMatcherAgreesOnInstances compares the matchers on the source and
// target graphs of every rule's instances.
func TestMatcherAgreesOnInstances(t *testing.T) {
	set := shippedRules(t)
	total := 0
	for _, r := range set.Rules {
		insts, err := r.Sample(rules.SampleOptions{Instances: 2})
		if err != nil {
			t.Errorf("%s: %v", r.Name, err)
			continue
		}
		for _, in := range insts {
			src, tgt, err := r.Instantiate(in)
			if err != nil {
				t.Errorf("%s: %v", r.Name, err)
				continue
			}
			total += compareMatches(t, r.Name+" source "+in.String(), set, src)
			total += compareMatches(t, r.Name+" target "+in.String(), set, tgt)
		}
	}
	if total == 0 {
		t.Fatal("no matches at all in the rule instances")
	}
	t.Logf("%d matches", total)
}

// TestZooCandidates generates the candidates of every zoo model (cpu
// preset) and checks that each is valid, carries its canonical hash, and
// is unique and different from the model; for perRuleVerify candidates of
// every rule that has any, it checks with the Go executor that the
// candidate computes the model's function.
func TestZooCandidates(t *testing.T) {
	set := shippedRules(t)
	e := NewEngine(set, Options{Eval: executor.Evaluate})
	for _, name := range models.Names() {
		t.Run(name, func(t *testing.T) {
			g := zooGraph(t, name)
			cands, st, err := e.CandidatesWithStats(g)
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) == 0 {
				t.Fatal("no candidates")
			}
			// Recomputing every canonical hash of NASNet-A's 3192
			// candidates from scratch takes long; a third will do.
			hashEvery := 1 + len(cands)/1000
			checkCandidates(t, g, cands, false, hashEvery)
			if n := st.Rejected(RejectInternal) + st.Rejected(RejectFold); n > 0 {
				t.Errorf("%d matches failed to apply or fold", n)
			}
			sample := verifySample(cands, perRuleVerify)
			ruleCount := map[string]bool{}
			for _, c := range cands {
				ruleCount[c.Rule] = true
			}
			for _, c := range sample {
				verifySame(t, g, c.Graph, name+" "+c.Rule)
			}
			verified := len(sample)
			if verified < perRuleVerify*len(ruleCount) && verified < len(cands) {
				t.Errorf("verified %d candidates, want at least %d per rule (%d rules)", verified, perRuleVerify, len(ruleCount))
			}
			t.Logf("%d nodes, %d matches, %d candidates, %d verified (%v)", len(g.Nodes), st.Matches, len(cands), verified, st.Total)
		})
	}
}

// perRuleVerify is the number of candidates of each rule (or all of
// them, when the rule has fewer) TestZooCandidates checks with the
// executor on every model: a fixed minimum, not a time budget.
const perRuleVerify = 1

// verifySample picks up to n candidates per rule, taking one of each rule
// in turn (so the budget covers every rule first).
func verifySample(cands []Candidate, n int) []Candidate {
	byRule := map[string][]Candidate{}
	var rulesInOrder []string
	for _, c := range cands {
		if byRule[c.Rule] == nil {
			rulesInOrder = append(rulesInOrder, c.Rule)
		}
		byRule[c.Rule] = append(byRule[c.Rule], c)
	}
	var out []Candidate
	for k := 0; k < n; k++ {
		for _, r := range rulesInOrder {
			if cs := byRule[r]; k < len(cs) {
				// Spread the picks over the rule's candidates.
				out = append(out, cs[k*len(cs)/n])
			}
		}
	}
	return out
}
