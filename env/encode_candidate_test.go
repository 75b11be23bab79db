package env

import (
	"reflect"
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// ruleEngine returns an engine with the shipped rules folding with the Go
// executor, keying candidates above lazyHashNodes (see
// rewrite.Options.LazyHashNodes).
func ruleEngine(t *testing.T, lazyHashNodes int) *rewrite.Engine {
	t.Helper()
	set, err := ruleverify.LoadWith(nil, ruleverify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rewrite.NewEngine(set, rewrite.Options{Eval: executor.Evaluate, LazyHashNodes: lazyHashNodes})
}

// TestEncodeCandidateIsEncodeGraph encodes every lazy candidate of the
// zoo models and of a residual chain from its base graph's encoding and
// checks the tensor equals EncodeGraph of the built candidate, and that
// most are encoded from the base.
func TestEncodeCandidateIsEncodeGraph(t *testing.T) {
	e := ruleEngine(t, -1)
	names := append(models.Names(), "resmlp")
	for _, name := range names {
		m, err := models.Build(name, models.PresetCPU, models.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		g, _, err := rewrite.Fold(m.Graph, executor.Evaluate)
		if err != nil {
			t.Fatal(err)
		}
		cands, err := e.CandidatesLazy(g, false)
		if err != nil {
			t.Fatal(err)
		}
		b := encodeBase(g)
		if !reflect.DeepEqual(b.t, EncodeGraph(g)) {
			t.Fatalf("%s: the base encoding differs from EncodeGraph", name)
		}
		fast, tried := 0, 0
		for i, c := range cands {
			if i%7 != 0 && len(cands) > 500 {
				continue
			}
			tried++
			got, ok := encodeFromBase(b, c)
			if !ok {
				continue
			}
			fast++
			if want := EncodeGraph(c.Materialize()); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: candidate %d (%s): the encoding from the base differs from EncodeGraph", name, i, c.Rule)
			}
		}
		t.Logf("%s: %d of %d candidates encoded from the base", name, fast, tried)
		if 2*fast < tried {
			t.Errorf("%s: only %d of %d candidates encoded from the base", name, fast, tried)
		}
	}
}
