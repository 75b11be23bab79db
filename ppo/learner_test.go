package ppo

import (
	"math"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
)

// recordAll keeps every transition of a rollout.
type recordAll struct {
	env.Agent
	trs []env.Transition
}

func (r *recordAll) Observe(t env.Transition) error { r.trs = append(r.trs, t); return nil }

func TestLearnerRelabelAndUpdate(t *testing.T) {
	cfg := smallConfig()
	ec := chainEnv(t)
	ec.Horizon, ec.FeedbackEvery, ec.MaxCandidates = cfg.Horizon, cfg.FeedbackEvery, cfg.MaxCandidates
	e, err := env.New(ec)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := gat.New(func() gat.Config { c := cfg.NetConfig(); c.Seed = 99; return c }())
	rec := &recordAll{Agent: env.NewRandomAgent(1)}
	if _, err := env.Rollout(e, rec, 5); err != nil {
		t.Fatal(err)
	}
	net, _ := gat.New(cfg.NetConfig())
	l, err := NewLearner(net, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := l.Relabel(rec.trs)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		b, err := net.Forward([]*env.Observation{s.Obs})
		if err != nil {
			t.Fatal(err)
		}
		ob, _ := other.Forward([]*env.Observation{s.Obs})
		if want := b.LogProbs[0][s.Action]; s.LogProb != want || s.Value != b.Values[0] {
			t.Errorf("step %d: log-prob %v value %v, want the learner's %v %v", i, s.LogProb, s.Value, want, b.Values[0])
		}
		if ob.LogProbs[0][s.Action] == s.LogProb {
			t.Errorf("step %d: another network gives the same log-prob; the check cannot tell them apart", i)
		}
		if end := i == len(samples)-1; s.Step.End != end {
			t.Errorf("step %d: End %v, want %v", i, s.Step.End, end)
		}
	}
	before := append([]float32(nil), net.Params()[len(net.Params())-1].Value...)
	for _, tc := range []struct {
		name  string
		steps []Sample
		err   string
	}{
		{"episode cut short", samples[:len(samples)-1], "does not end an episode"},
		{"whole episode", samples, ""},
	} {
		up, err := l.Update(tc.steps)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || up.Minibatches == 0 || math.IsNaN(float64(up.PolicyLoss)) {
			t.Errorf("%s: update %+v, error %v", tc.name, up, err)
		}
	}
	if l.Updates() != 1 {
		t.Errorf("%d updates counted, want 1", l.Updates())
	}
	after := net.Params()[len(net.Params())-1].Value
	same := true
	for i := range before {
		same = same && before[i] == after[i]
	}
	if same {
		t.Error("the update left the value head unchanged")
	}
}
