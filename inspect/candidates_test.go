package inspect

import (
	"testing"

	"github.com/xrl-dev/xrl/models"
)

// TestCandidatesOfCountsBuiltOnes: the lazy generation CandidatesOf runs
// counts, rule by rule, the candidates a generation that builds every
// candidate's graph keeps, on zoo models with many candidates of many
// rules.
func TestCandidatesOfCountsBuiltOnes(t *testing.T) {
	for _, name := range []string{"bert", "resnext50", "nasneta", "resmlp"} {
		t.Run(name, func(t *testing.T) {
			m, err := models.Build(name, models.PresetCPU, models.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := CandidatesOf(m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			engine, folded, err := firstStep(m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			built, st, err := engine.CandidatesWithStats(folded)
			if err != nil {
				t.Fatal(err)
			}
			if got.N != len(built) || got.N == 0 {
				t.Fatalf("CandidatesOf counts %d candidates, the built generation %d", got.N, len(built))
			}
			for i, r := range st.Rules {
				g := got.Stats.Rules[i]
				if g.Rule != r.Rule || g.Matches != r.Matches || g.Candidates != r.Candidates {
					t.Errorf("rule %s: %d matches, %d candidates; built: %s, %d, %d", g.Rule, g.Matches, g.Candidates, r.Rule, r.Matches, r.Candidates)
				}
			}
		})
	}
}
