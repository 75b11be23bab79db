package nodecost

import (
	"testing"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// shapeTimes charges a node 100 ns per input and 1 ns per element of its
// first output.
type shapeTimes struct{}

func (shapeTimes) OpTime(_ *graph.Model, n *graph.Node) (time.Duration, error) {
	d := time.Duration(100 * len(n.Inputs))
	if o := n.Output(0); o != nil && o.ShapeKnown && o.Shape.Static() {
		d += time.Duration(graph.NumElements(o.Shape.Ints()))
	}
	return d, nil
}

// TestBaseLatencyIsLatency scores every lazy candidate of zoo models and
// of a residual chain from its change and checks the latency equals the
// sum over its whole graph.
func TestBaseLatencyIsLatency(t *testing.T) {
	set, err := ruleverify.LoadWith(nil, ruleverify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := rewrite.NewEngine(set, rewrite.Options{Eval: executor.Evaluate})
	for _, tc := range []struct {
		name string
		o    models.Overrides
	}{{"bert", models.Overrides{}}, {"nasrnn", models.Overrides{}}, {"inceptionv3", models.Overrides{}}, {"resmlp", models.Overrides{Layers: 200}}} {
		m, err := models.Build(tc.name, models.PresetCPU, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		timer := NewTimer(shapeTimes{})
		lat, err := timer.Latency(m)
		if err != nil {
			t.Fatal(err)
		}
		base, err := timer.Base(m, lat)
		if err != nil {
			t.Fatal(err)
		}
		cands, err := e.CandidatesLazy(m.Graph, false)
		if err != nil {
			t.Fatal(err)
		}
		scored := 0
		for i, c := range cands {
			got, ok, err := base.Latency(c)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			scored++
			cm := *m
			cm.Graph = c.Materialize()
			want, err := NewTimer(shapeTimes{}).Latency(&cm)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%s: candidate %d (%s): %v from its change, %v over its graph", tc.name, i, c.Rule, got, want)
			}
		}
		t.Logf("%s: %d of %d candidates scored from their change", tc.name, scored, len(cands))
		if 2*scored < len(cands) {
			t.Errorf("%s: only %d of %d candidates scored from their change", tc.name, scored, len(cands))
		}
	}
}
