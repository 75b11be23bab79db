package rewrite

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
)

// reluChain builds x -> Relu -> Relu -> ... (n Relus) on a 1x64x8x8
// float32 input: the graph on which pair rules (relu-merge-rows/cols)
// find a match for every pair of nodes, each of which would make a cycle.
func reluChain(t testing.TB, n int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(fmt.Sprintf("relu_chain_%d", n))
	v := b.Input("x", graph.Float32, 1, 64, 8, 8)
	for i := 0; i < n; i++ {
		v = b.Op("Relu", []*graph.Value{v}, nil)
	}
	b.Output(v)
	return graphtest.Graph(t, b)
}

// chainRun generates the candidates of g once and returns the wall time
// and the bytes allocated.
func chainRun(t testing.TB, e *Engine, g *graph.Graph) ([]Candidate, time.Duration, uint64) {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	cands, err := e.Candidates(g)
	d := time.Since(t0)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	return cands, d, m1.TotalAlloc - m0.TotalAlloc
}

// TestChainCandidatesScale checks that candidate generation on a chain
// of 5,000 Relus stays within 5 s and allocates less than 1 GiB in all
// (pair rules must not build every pair of nodes).
func TestChainCandidatesScale(t *testing.T) {
	set := shippedRules(t)
	g := reluChain(t, 5000)
	e := NewEngine(set, Options{Eval: executor.Evaluate})
	cands, d, alloc := chainRun(t, e, g)
	t.Logf("%d nodes: %d candidates in %v, %.1f MiB allocated", len(g.Nodes), len(cands), d, float64(alloc)/(1<<20))
	if d > 5*time.Second {
		t.Errorf("took %v, want under 5s", d)
	}
	if alloc > 1<<30 {
		t.Errorf("allocated %.1f MiB, want under 1 GiB", float64(alloc)/(1<<20))
	}
}

// BenchmarkCandidatesChain measures one candidate generation on chains of
// 1,000, 5,000 and 20,000 Relus.
func BenchmarkCandidatesChain(b *testing.B) {
	set := shippedRules(b)
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("relus=%d", n), func(b *testing.B) {
			g := reluChain(b, n)
			g.CanonicalHash()
			b.ReportAllocs()
			var cands []Candidate
			for b.Loop() {
				e := NewEngine(set, Options{Eval: executor.Evaluate})
				var err error
				if cands, err = e.Candidates(g); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(cands)), "candidates")
		})
	}
}
