package evolve

import (
	"errors"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/internal/xrltest"
)

// chainEnv is a small environment whose optimum is known: of the chain's
// eight nodes (seven plus xrltest's final Sigmoid), two Identity nodes and
// three of four consecutive Relus can go, leaving Relu, Tanh and Sigmoid.
func chainEnv(t testing.TB, horizon int) (*env.Env, *xrltest.NodeLatency) {
	t.Helper()
	lat := &xrltest.NodeLatency{}
	e, err := env.New(env.Config{
		Model:    xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh"),
		Rewriter: xrltest.DropRewriter{},
		Latency:  lat,
		Horizon:  horizon,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e, lat
}

func TestBRKGAFindsOptimum(t *testing.T) {
	e, _ := chainEnv(t, 10)
	res, err := BRKGA(e, nil, BRKGAConfig{Evaluations: 120, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(res.Best.Nodes), 3; got != want {
		t.Errorf("best graph has %d nodes, want %d (latency %v -> %v)", got, want, res.InitialLatency, res.BestLatency)
	}
	if len(res.Applied) != 5 {
		t.Errorf("rules up to the best graph: %v, want the 5 removals", res.Applied)
	}
	if res.Evaluations != 120 || res.StopReason != "budget" {
		t.Errorf("evaluations %d, stop %q: want the whole budget of 120", res.Evaluations, res.StopReason)
	}
	for i := 1; i < len(res.History); i++ {
		if res.History[i] > res.History[i-1] {
			t.Errorf("best latency got worse between generations %d and %d: %v", i, i+1, res.History)
		}
	}
	if res.Speedup() <= 1 {
		t.Errorf("speedup %v", res.Speedup())
	}
}

func TestBRKGAIsReproducible(t *testing.T) {
	run := func() BRKGAResult {
		e, _ := chainEnv(t, 10)
		res, err := BRKGA(e, nil, BRKGAConfig{Evaluations: 30, Population: 6, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	if a.BestLatency != b.BestLatency || len(a.History) != len(b.History) || len(a.Applied) != len(b.Applied) {
		t.Fatalf("same seed, different runs: %+v vs %+v", a, b)
	}
	for i := range a.Applied {
		if a.Applied[i] != b.Applied[i] {
			t.Fatalf("same seed, different rules: %v vs %v", a.Applied, b.Applied)
		}
	}
}

// noOpPrior puts all its mass on No-Op, so every decode ends at once.
type noOpPrior struct{}

func (noOpPrior) ActionProbs(obs *env.Observation) ([]float64, error) {
	p := make([]float64, len(obs.Mask))
	p[obs.NoOp()] = 1
	return p, nil
}

// firstPrior puts all its mass on action 0, the first candidate.
type firstPrior struct{}

func (firstPrior) ActionProbs(obs *env.Observation) ([]float64, error) {
	p := make([]float64, len(obs.Mask))
	p[0] = 1
	return p, nil
}

type brokenPrior struct{ short bool }

func (b brokenPrior) ActionProbs(obs *env.Observation) ([]float64, error) {
	if b.short {
		return []float64{1}, nil
	}
	return make([]float64, len(obs.Mask)), nil
}

func TestBRKGAPriorSteersDecoding(t *testing.T) {
	e, _ := chainEnv(t, 10)
	res, err := BRKGA(e, noOpPrior{}, BRKGAConfig{Evaluations: 10, Population: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.BestLatency != res.InitialLatency || len(res.Applied) != 0 {
		t.Errorf("a No-Op prior changed the graph: %v -> %v, rules %v", res.InitialLatency, res.BestLatency, res.Applied)
	}
	res, err = BRKGA(e, firstPrior{}, BRKGAConfig{Evaluations: 4, Population: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Best.Nodes) != 3 {
		t.Errorf("always taking the first candidate should remove every removable node; got %d nodes", len(res.Best.Nodes))
	}
	for _, p := range []Prior{brokenPrior{}, brokenPrior{short: true}} {
		if _, err := BRKGA(e, p, BRKGAConfig{Evaluations: 2, Population: 2}); err == nil {
			t.Errorf("prior %+v accepted", p)
		}
	}
}

func TestKeyAction(t *testing.T) {
	obs := &env.Observation{Mask: []bool{true, false, true, true}}
	tests := []struct {
		k     float64
		prior Prior
		want  int
	}{
		{0, nil, 0}, {0.34, nil, 2}, {0.99, nil, 3},
		{0.49, fixedPrior{0.5, 100, 0, 0.5}, 0}, {0.51, fixedPrior{0.5, 100, 0, 0.5}, 3},
	}
	for _, tc := range tests {
		got, err := keyAction(obs, tc.prior, tc.k)
		if err != nil || got != tc.want {
			t.Errorf("key %v prior %v: action %d (%v), want %d", tc.k, tc.prior, got, err, tc.want)
		}
	}
	if _, err := keyAction(obs, fixedPrior{0, 1, 0, 0}, 0.5); !errors.Is(err, errBadPrior) {
		t.Errorf("a prior with mass only on masked actions: %v", err)
	}
}

type fixedPrior []float64

func (f fixedPrior) ActionProbs(*env.Observation) ([]float64, error) { return f, nil }

func TestBRKGAConfigErrors(t *testing.T) {
	e, _ := chainEnv(t, 10)
	for _, cfg := range []BRKGAConfig{
		{Population: 1}, {EliteFrac: 0.6, MutantFrac: 0.5}, {Inherit: 0.2}, {Evaluations: -1}, {EliteFrac: 1.5},
	} {
		if _, err := BRKGA(e, nil, cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
}

func TestBRKGATimeLimit(t *testing.T) {
	e, _ := chainEnv(t, 10)
	res, err := BRKGA(e, nil, BRKGAConfig{Evaluations: 1 << 20, Population: 4, TimeLimit: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != "time limit" || res.Generations != 1 {
		t.Errorf("stop %q after %d generations", res.StopReason, res.Generations)
	}
}
