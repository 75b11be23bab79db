package pipeline

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/xrltest"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/ppo/builtin"
)

func TestLoadPolicy(t *testing.T) {
	net, cfg, err := LoadPolicy(builtin.Name)
	if err != nil {
		t.Fatal(err)
	}
	_, prov, err := builtin.Load()
	if err != nil {
		t.Fatal(err)
	}
	if net == nil || cfg.Horizon != prov.Horizon || cfg.MaxCandidates != prov.MaxCandidates {
		t.Errorf("built-in policy: horizon %d, candidates %d; provenance says %d, %d", cfg.Horizon, cfg.MaxCandidates, prov.Horizon, prov.MaxCandidates)
	}
	missing := filepath.Join(t.TempDir(), "builtin")
	_, _, err = LoadPolicy(missing)
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.Path != missing {
		t.Errorf("a missing checkpoint file: %v, want a PolicyError naming it", err)
	}
}

// firstAgent always applies the first candidate.
type firstAgent struct{}

func (firstAgent) Act(*env.Observation) (int, error) { return 0, nil }

func TestPatienceEndsRolloutsWithoutProgress(t *testing.T) {
	flat := &xrltest.NodeLatency{}
	for _, tc := range []struct {
		name      string
		perNode   time.Duration // 0: every graph costs the same
		patience  int
		steps     int
		stopped   bool
		stopAfter string
	}{
		{"no patience runs to the end", 0, 0, 5, false, "no candidates"},
		{"patience 2 without progress", 0, 2, 3, true, "no-op"},
		{"patience 1 while improving", time.Microsecond, 1, 5, false, "no candidates"},
	} {
		var lm measure.LatencyModel = constLatency{}
		if tc.perNode > 0 {
			flat.PerNode = tc.perNode
			lm = flat
		}
		e, err := env.New(env.Config{Model: xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh"),
			Rewriter: xrltest.DropRewriter{}, Latency: lm, FeedbackEvery: 1})
		if err != nil {
			t.Fatal(err)
		}
		a := &patientAgent{inner: firstAgent{}, env: e, patience: tc.patience}
		ep, err := env.Rollout(e, a, 1)
		if err != nil {
			t.Fatal(err)
		}
		if ep.Steps != tc.steps || a.stopped != tc.stopped || ep.StopReason != tc.stopAfter {
			t.Errorf("%s: %d steps, stopped %v, %q; want %d, %v, %q", tc.name, ep.Steps, a.stopped, ep.StopReason, tc.steps, tc.stopped, tc.stopAfter)
		}
	}
}

// constLatency gives every graph the same latency.
type constLatency struct{}

func (constLatency) Name() string { return "const" }

func (constLatency) Latency(*graph.Model) (measure.Stats, error) {
	return measure.Stats{N: 1, Median: time.Millisecond, Min: time.Millisecond, Stable: true}, nil
}

func TestTimesString(t *testing.T) {
	tm := Times{Search: 12 * time.Millisecond, Prepare: time.Second, Expand: 500 * time.Millisecond, Verify: 2 * time.Second, Measure: 3 * time.Second, Total: 6512 * time.Millisecond}
	want := "time: search 12ms; shared 6.5s (prepare 1s, start graph's candidates 500ms, verify 2s, measure and write 3s); total 6.512s"
	if got := tm.String(); got != want {
		t.Errorf("Times.String() = %q, want %q", got, want)
	}
}

// TestPatienceCountsOncePerStep checks that asking the patient agent
// again at the same step (as Rollout does after env.ErrRejected) does not
// count the step twice.
func TestPatienceCountsOncePerStep(t *testing.T) {
	for _, tc := range []struct {
		asks     int // Act calls per step
		stopStep int // the step at which it chooses No-Op
	}{{1, 2}, {2, 2}, {3, 2}} {
		e, err := env.New(env.Config{Model: xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh"),
			Rewriter: xrltest.DropRewriter{}, Latency: constLatency{}, FeedbackEvery: 1})
		if err != nil {
			t.Fatal(err)
		}
		obs, _, err := e.Reset(1)
		if err != nil {
			t.Fatal(err)
		}
		a := &patientAgent{inner: firstAgent{}, env: e, patience: 2}
		for step := 0; ; step++ {
			var act int
			for i := 0; i < tc.asks; i++ {
				if act, err = a.Act(obs); err != nil {
					t.Fatal(err)
				}
			}
			if act == obs.NoOp() {
				if step != tc.stopStep {
					t.Errorf("asked %d times a step: No-Op at step %d, want %d", tc.asks, step, tc.stopStep)
				}
				break
			}
			if obs, _, _, _, _, err = e.Step(act); err != nil {
				t.Fatalf("asked %d times a step: step %d: %v", tc.asks, step, err)
			}
		}
	}
}
