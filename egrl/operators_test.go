package egrl

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/gat"
)

func newNet(t *testing.T, seed uint64) *gat.Net {
	t.Helper()
	p := smallPPO(seed)
	c := p.NetConfig()
	n, err := gat.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCrossoverTakesAPrefixFromEachParent(t *testing.T) {
	a, b := newNet(t, 1), newNet(t, 2)
	for seed := uint64(0); seed < 20; seed++ {
		c := crossover(a, b, rand.New(rand.NewPCG(seed, 1)))
		pa, pb, pc := a.Params(), b.Params(), c.Params()
		cut := -1
		for i := range pc {
			fromA, fromB := slices.Equal(pc[i].Value, pa[i].Value), slices.Equal(pc[i].Value, pb[i].Value)
			switch {
			case fromA && fromB: // equal in both parents (e.g. zero biases)
			case fromA:
				if cut >= 0 {
					t.Fatalf("seed %d: tensor %d from the first parent after tensor %d from the second", seed, i, cut)
				}
			case fromB:
				if cut < 0 {
					cut = i
				}
			default:
				t.Fatalf("seed %d: tensor %d (%s) from neither parent", seed, i, pc[i].Name)
			}
		}
		if !slices.Equal(pc[0].Value, pa[0].Value) {
			t.Fatalf("seed %d: the first tensor is not the first parent's", seed)
		}
	}
}

func TestMutate(t *testing.T) {
	for _, tc := range []struct {
		name      string
		frac, std float64
		lo, hi    float64 // share of changed weights
	}{
		{"off", 0, 0.1, 0, 0},
		{"zero noise", 0.5, 0, 0, 0},
		{"tenth", 0.1, 0.1, 0.07, 0.13},
		{"all", 1, 0.1, 0.99, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newNet(t, 1)
			m := a.Clone()
			mutate(m, tc.frac, tc.std, rand.New(rand.NewPCG(4, 5)))
			changed, total := 0, 0
			for i, p := range m.Params() {
				for j, v := range p.Value {
					total++
					if v != a.Params()[i].Value[j] {
						changed++
					}
				}
			}
			if share := float64(changed) / float64(total); share < tc.lo || share > tc.hi {
				t.Errorf("%d of %d weights changed (%.3f), want a share in [%g, %g]", changed, total, share, tc.lo, tc.hi)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		ok   bool
	}{
		{"default", func(*Config) {}, true},
		{"learner alone", func(c *Config) { c.Population = 0 }, true},
		{"nothing runs", func(c *Config) { c.Population, c.LearnerEpisodes = 0, 0 }, false},
		{"negative population", func(c *Config) { c.Population = -1 }, false},
		{"no generations", func(c *Config) { c.Generations = 0 }, false},
		{"elite share above one", func(c *Config) { c.EliteFrac = 1.5 }, false},
		{"NaN mutation", func(c *Config) { c.MutationProb = nan() }, false},
		{"negative noise", func(c *Config) { c.MutationStd = -1 }, false},
	} {
		c := DefaultConfig()
		tc.edit(&c)
		if err := c.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func nan() float64 { return math.NaN() }
