package env_test

import (
	"testing"

	"github.com/xrl-dev/xrl/internal/xrltest"
	"github.com/xrl-dev/xrl/models"
)

// BenchmarkReset and BenchmarkStep time the environment itself (candidate
// generation with the real rules, constant folding, observation encoding)
// on every zoo model at the cpu preset. Latency comes from a free
// stand-in model, so measurement time is excluded. Actions pick the first
// candidate; an episode that ends is reset outside the timer.
func BenchmarkReset(b *testing.B) {
	for _, name := range models.Names() {
		b.Run(name, func(b *testing.B) {
			e := zooEnv(b, name, &xrltest.NodeLatency{}, 200)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := e.Reset(uint64(i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkStep(b *testing.B) {
	for _, name := range models.Names() {
		b.Run(name, func(b *testing.B) {
			e := zooEnv(b, name, &xrltest.NodeLatency{}, 200)
			obs, _, err := e.Reset(1)
			if err != nil {
				b.Fatal(err)
			}
			cands := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				act := 0
				if len(obs.Candidates) == 0 {
					act = obs.NoOp()
				}
				next, _, term, trunc, info, err := e.Step(act)
				if err != nil {
					b.Fatal(err)
				}
				cands += info.Shown
				obs = next
				if term || trunc {
					b.StopTimer()
					if obs, _, err = e.Reset(uint64(i)); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(float64(cands)/float64(b.N), "candidates/step")
		})
	}
}
