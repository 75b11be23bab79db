package evolve

import (
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/env"
)

// constKeys gives No-Op the key noop and every other action the key other.
type constKeys struct{ noop, other float64 }

func (c constKeys) Keys(obs *env.Observation, _ []env.Candidate, _ *rand.Rand) ([]float64, error) {
	k := make([]float64, len(obs.Mask))
	for i := range k {
		k[i] = c.other
	}
	k[obs.NoOp()] = c.noop
	return k, nil
}

type shortKeys struct{}

func (shortKeys) Keys(*env.Observation, []env.Candidate, *rand.Rand) ([]float64, error) {
	return []float64{1}, nil
}

func TestBRKGAKeyDist(t *testing.T) {
	tests := []struct {
		name    string
		keys    KeyDist
		prior   Prior
		evals   int
		nodes   int // nodes of the best graph; 0: expect an error
		applied int
	}{
		{"uniform keys find the optimum", UniformKeys{}, nil, 120, 3, 5},
		{"keys that favour No-Op change nothing", constKeys{noop: 0.9, other: 0.1}, nil, 8, 8, 0},
		{"keys that avoid No-Op remove every removable node", constKeys{noop: 0.1, other: 0.9}, nil, 4, 3, 5},
		{"too few keys", shortKeys{}, nil, 2, 0, 0},
		{"a prior as well", UniformKeys{}, firstPrior{}, 2, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := chainEnv(t, 10)
			res, err := BRKGA(e, tc.prior, BRKGAConfig{Evaluations: tc.evals, Population: 4, Seed: 5, Keys: tc.keys})
			if tc.nodes == 0 {
				if err == nil {
					t.Fatal("accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Best.Nodes) != tc.nodes || len(res.Applied) != tc.applied {
				t.Errorf("best graph has %d nodes after %v; want %d nodes after %d rules", len(res.Best.Nodes), res.Applied, tc.nodes, tc.applied)
			}
		})
	}
}

func TestPriorityAction(t *testing.T) {
	obs := &env.Observation{Mask: []bool{true, false, true, true}}
	tests := []struct {
		keys []float64
		want int
	}{
		{[]float64{0.5, 0.9, 0.2, 0.1}, 0}, // the masked action's key does not count
		{[]float64{0.1, 0.1, 0.7, 0.7}, 2}, // the first of equal keys
		{[]float64{0, 0, 0, 0.01}, 3},
	}
	for _, tc := range tests {
		if got, err := priorityAction(obs, tc.keys); err != nil || got != tc.want {
			t.Errorf("keys %v: action %d (%v), want %d", tc.keys, got, err, tc.want)
		}
	}
	if _, err := priorityAction(&env.Observation{Mask: []bool{false}}, []float64{1}); err == nil {
		t.Error("an all-masked observation gave an action")
	}
}

func TestCrossover(t *testing.T) {
	a := [][]float64{{1, 1, 1}, {1}, nil}
	b := [][]float64{{2, 2}, {2, 2, 2}, {2}}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, inherit := range []float64{1, 0.5} {
		c := crossover(a, b, inherit, rng)
		if len(c[0]) != 3 || len(c[1]) != 3 || len(c[2]) != 1 {
			t.Fatalf("row lengths %d %d %d, want the longer parent's", len(c[0]), len(c[1]), len(c[2]))
		}
		if c[0][2] != 1 || c[1][2] != 2 || c[2][0] != 2 {
			t.Errorf("keys only one parent has: %v", c)
		}
		if inherit == 1 && (c[0][0] != 1 || c[1][0] != 1) {
			t.Errorf("inherit 1 took keys from the other parent: %v", c)
		}
	}
}
