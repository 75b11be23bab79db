package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"

	"github.com/xrl-dev/xrl/models"
)

// BenchmarkCandidates measures one candidate generation (all rules, all
// matches, apply, fold, hash, dedup) on every zoo model at the cpu preset
// with the default options (two workers) and an empty fold memo: the cost
// of the first step of a search or an episode. The input graph's constant
// digests are computed before timing (they are cached on the tensors, and
// every graph a search or an episode visits was hashed when it was made).
// Besides ns/op it reports the candidates, the time per candidate and the
// process CPU time per generation (cpu-ms/op, which a loaded machine
// disturbs less than wall time).
func BenchmarkCandidates(b *testing.B) {
	benchCandidates(b, false)
}

// BenchmarkCandidatesWarm is BenchmarkCandidates with one engine for all
// iterations: the fold memo serves the folds of earlier generations, as
// it does for the later steps of a search or an episode (most candidates
// of the next graph repeat folds of the previous one).
func BenchmarkCandidatesWarm(b *testing.B) {
	benchCandidates(b, true)
}

func benchCandidates(b *testing.B, warm bool) {
	set := shippedRules(b)
	for _, name := range models.Names() {
		b.Run(name, func(b *testing.B) {
			g := zooGraph(b, name)
			g.CanonicalHash()
			e := NewEngine(set, Options{Eval: executor.Evaluate})
			var n int
			c0 := cpuTime()
			for b.Loop() {
				if !warm {
					e = NewEngine(set, Options{Eval: executor.Evaluate})
				}
				cands, err := e.Candidates(g)
				if err != nil {
					b.Fatal(err)
				}
				n = len(cands)
			}
			cpu := cpuTime() - c0
			b.ReportMetric(float64(n), "candidates")
			if n > 0 {
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/candidate")
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
