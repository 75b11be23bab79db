package ort

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
)

// matmulChain is x (32x128) through layers MatMuls with distinct 128x128
// weights: every layer costs the same, so layers+1 layers cost 1/layers
// more.
func matmulChain(t testing.TB, layers int) *graph.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	b := graph.NewBuilder("chain")
	x := b.Input("x", graph.Float32, 32, 128)
	for i := 0; i < layers; i++ {
		w := randTensor(r, 128, 128)
		x = b.Op("MatMul", []*graph.Value{x, b.Const(fmt.Sprintf("w%d", i), w)}, nil)
	}
	b.Output(x)
	return graphtest.Model(t, b)
}

// TestDetectsThreePercent compares a 32-layer MatMul chain with itself and
// with the same chain plus one layer (3.1% more work), interleaved in ONNX
// Runtime on one thread. Equality is an equivalence check: two sessions of
// one model may differ by about a percent (their buffers sit at different
// addresses), so "itself" asks for the whole 99% interval inside [0.97,
// 1.03], within the 3% the slower chain must be told apart by, and the
// slower chain for an interval above 1 and a ratio in [1.01, 1.06]. The
// machine may be shared with other work, so a failed attempt is repeated
// up to five times; each attempt stops as soon as its 99% interval is
// within 0.5%, or after 8 s. On an EPYC VM whose pair ratios spread by
// 11-19% (MAD) at one thread, three attempts of 5 s failed the test in 2
// of 6 runs alone and once in the suite (the chain plus a layer read
// 1.012-1.019, 99% CI reaching below 1); with [0.98, 1.02], five attempts
// of 8 s failed once in the suite, where two sessions of the chain read
// 1.008-1.012 in every attempt, their intervals reaching 1.021-1.029.
func TestDetectsThreePercent(t *testing.T) {
	be, err := New(measure.BackendOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	load := func(m *graph.Model) measure.Session {
		s, err := be.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	base := matmulChain(t, 32)
	a, a2, b := load(base), load(base), load(matmulChain(t, 33))
	in, err := measure.RandomInputs(base.Graph, 1)
	if err != nil {
		t.Fatal(err)
	}
	opts := measure.MeasureOptions{Warmup: 5, Runs: 96, Precision: 0.005, MaxTime: 8 * time.Second}
	const attempts = 5
	cases := []struct {
		name   string
		other  measure.Session
		lo, hi float64
		// slower asks for a 99% interval above 1; otherwise the whole
		// interval must lie in [lo, hi].
		slower bool
	}{
		{"itself", a2, 0.97, 1.03, false},
		{"one more layer", b, 1.01, 1.06, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var last measure.Comparison
			for attempt := 1; attempt <= attempts; attempt++ {
				cmp, err := measure.Compare(a, c.other, in, in, opts)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("attempt %d: %v", attempt, cmp)
				last = cmp
				ok := cmp.RatioLo >= c.lo && cmp.RatioHi <= c.hi
				if c.slower {
					ok = cmp.Ratio >= c.lo && cmp.Ratio <= c.hi && cmp.RatioLo > 1
				}
				if ok {
					return
				}
			}
			t.Errorf("want (slower=%v) ratio within [%.2f, %.2f] in one of %d attempts; last: %v", c.slower, c.lo, c.hi, attempts, last)
		})
	}
}
