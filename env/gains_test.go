package env

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// opLatency costs each node by its op: Relu 3µs, everything else 1µs.
type opLatency struct{}

func (opLatency) Name() string { return "ops" }

func (opLatency) Latency(m *graph.Model) (measure.Stats, error) {
	var d time.Duration
	for _, n := range m.Graph.Nodes {
		d += time.Microsecond
		if n.Op == "Relu" {
			d += 2 * time.Microsecond
		}
	}
	return measure.Stats{N: 1, Median: d, P10: d, P90: d, Min: d, Stable: true}, nil
}

func TestGainFeature(t *testing.T) {
	for _, tc := range []struct{ g, want float64 }{
		{0, 0}, {0.01, math.Log(2)}, {-0.01, -math.Log(2)}, {0.3, math.Log(31)},
	} {
		if got := GainFeature(tc.g); math.Abs(float64(got)-tc.want) > 1e-6 {
			t.Errorf("GainFeature(%v) = %v, want %v", tc.g, got, tc.want)
		}
	}
}

func TestCandidateGainsShowEachCandidatesGain(t *testing.T) {
	// Identity, Relu, Relu, Identity, Relu, Relu, Tanh, Sigmoid: dropping
	// an Identity saves 1µs, a Relu 3µs, of 16µs.
	const total = 16.0
	for _, max := range []int{10, 2} {
		e := newTestEnv(t, Config{Latency: opLatency{}, MaxCandidates: max, CandidateGains: true})
		obs, info, err := e.Reset(1)
		if err != nil {
			t.Fatal(err)
		}
		if info.Candidates != 4 || info.Shown != min(4, max) {
			t.Fatalf("max %d: %d candidates, %d shown", max, info.Candidates, info.Shown)
		}
		for i, c := range e.Candidates() {
			g := 1 / total
			if c.Rule == "relu-idempotent" {
				g = 3 / total
			}
			if got := obs.Candidates[i].Global[0]; got != GainFeature(g) {
				t.Errorf("max %d: candidate %d (%s) shows %v, want GainFeature(%v) = %v", max, i, c.Rule, got, g, GainFeature(g))
			}
		}
		if obs.Current.Global[0] != 0 {
			t.Errorf("max %d: the current graph's global attribute is %v, want 0", max, obs.Current.Global[0])
		}
	}
	// Off by default: every global attribute stays zero.
	e := newTestEnv(t, Config{Latency: opLatency{}})
	obs, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range obs.Candidates {
		if c.Global[0] != 0 {
			t.Errorf("without CandidateGains candidate %d shows %v", i, c.Global[0])
		}
	}
}

func TestNoOpAfterMasksTheFirstSteps(t *testing.T) {
	e := newTestEnv(t, Config{NoOpAfter: 2})
	obs, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 3; step++ {
		if want := step >= 2; obs.Mask[obs.NoOp()] != want {
			t.Fatalf("after %d steps No-Op valid = %v, want %v", step, obs.Mask[obs.NoOp()], want)
		}
		if step < 2 {
			if _, _, _, _, _, err := e.Step(obs.NoOp()); !errors.Is(err, ErrInvalidAction) {
				t.Fatalf("a masked No-Op after %d steps: %v, want ErrInvalidAction", step, err)
			}
		}
		if obs, _, _, _, _, err = e.Step(0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := New(Config{Model: e.cfg.Model, Rewriter: e.cfg.Rewriter, Latency: e.cfg.Latency, NoOpAfter: -1}); err == nil {
		t.Error("a negative NoOpAfter was accepted")
	}
}
