package gat

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/internal/xrltest"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// envObservations returns the observations of an episode of model on the
// real rules, taking the candidate index step%len(candidates) at each step.
func envObservations(t *testing.T, name string, o models.Overrides, steps int) []*env.Observation {
	t.Helper()
	m, err := models.Build(name, models.PresetCPU, o)
	if err != nil {
		t.Fatal(err)
	}
	set, err := ruleverify.LoadWith(nil, ruleverify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	folded, _, err := rewrite.Fold(m.Graph, executor.Evaluate)
	if err != nil {
		t.Fatal(err)
	}
	m.Graph = folded
	e, err := env.New(env.Config{Model: m, Rewriter: rewrite.NewEngine(set, rewrite.Options{Eval: executor.Evaluate}),
		Latency: &xrltest.NodeLatency{}, MaxCandidates: 32, Horizon: steps + 1})
	if err != nil {
		t.Fatal(err)
	}
	obs, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	out := []*env.Observation{obs}
	for s := 0; s < steps && len(obs.Candidates) > 0; s++ {
		if obs, _, _, _, _, err = e.Step((7 * s) % len(obs.Candidates)); err != nil {
			t.Fatal(err)
		}
		out = append(out, obs)
	}
	return out
}

// TestActCacheEqualsFullPass runs Act, which keeps encoder rows between
// calls, over the observations of episodes (real rewrites of a zoo model
// and of a residual chain, and synthetic local rewrites) and checks that
// every log-probability and value equals, bit for bit, those of a fresh
// forward pass that computes every row; from the second observation on,
// Act must compute only part of the rows.
func TestActCacheEqualsFullPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var synth []*env.Observation
	for range 4 {
		synth = append(synth, synthObs(rng, 300, 400, 16, 16, false, false))
	}
	episodes := map[string][]*env.Observation{
		"bert":      envObservations(t, "bert", models.Overrides{}, 6),
		"resmlp":    envObservations(t, "resmlp", models.Overrides{Layers: 100}, 6),
		"synthetic": synth,
	}
	for name, obs := range episodes {
		t.Run(name, func(t *testing.T) {
			cached, err := New(DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			full := cached.Clone()
			for i, o := range obs {
				b, want := sameAsFullPass(t, cached, full, o)
				st, all := b.Stats(), want.Stats()
				t.Logf("observation %d: %d graphs, %d of %d rows computed", i, st.Graphs, st.Computed, all.Computed)
				if i > 0 && name != "synthetic" && st.Computed >= all.Computed {
					t.Errorf("observation %d: the cached pass computed %d of %d rows", i, st.Computed, all.Computed)
				}
			}
		})
	}
}

// TestActCacheFollowsParameters checks that the cache is not used across
// a change of the encoder's parameters.
func TestActCacheFollowsParameters(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	obs := synthObs(rng, 200, 300, 8, 8, false, false)
	net, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := net.Act(obs, nil, true); err != nil {
		t.Fatal(err)
	}
	for _, p := range net.Params() {
		for i := range p.Value {
			p.Value[i] *= 1.5
		}
	}
	sameAsFullPass(t, net, net, obs)
}

// sameAsFullPass runs cached's cached pass and full's full pass on o and
// checks that their log-probabilities and values are equal bit for bit.
func sameAsFullPass(t *testing.T, cached, full *Net, o *env.Observation) (got, want *Batch) {
	t.Helper()
	got = &Batch{}
	if err := cached.forwardTo(got, []*env.Observation{o}, true); err != nil {
		t.Fatal(err)
	}
	want, err := full.Forward([]*env.Observation{o})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.LogProbs[0], want.LogProbs[0]) || got.Values[0] != want.Values[0] {
		t.Fatalf("the cached pass gives %v, %v; the full pass %v, %v",
			got.LogProbs[0][:3], got.Values[0], want.LogProbs[0][:3], want.Values[0])
	}
	return got, want
}
