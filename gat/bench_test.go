package gat

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
)

// Benchmarks of issue 7's sizes: a state is a current graph and 32
// candidates of about 300 nodes and 400 edges each; the update is one
// PPO-like minibatch of 16 states (forward, backward, Adam step).
//
//	go test ./gat -run '^$' -bench . -benchtime 20x
//
// "rewrite" candidates are local rewrites of the current graph (what the
// environment produces); "independent" candidates are unrelated random
// graphs (the worst case for sharing); "noshare" turns sharing off.

var benchCases = []struct {
	name        string
	independent bool
	noShare     bool
}{
	{"rewrite", false, false},
	{"independent", true, false},
	{"noshare", true, true},
}

func benchStates(n int, independent bool) []*env.Observation {
	rng := rand.New(rand.NewPCG(42, 42))
	obs := make([]*env.Observation, n)
	for i := range obs {
		obs[i] = synthObs(rng, 300, 400, 32, 32, independent, false)
	}
	return obs
}

// heapMB returns the live heap after a collection: the network, the
// observations and the reused buffers of the Batch.
func heapMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// benchNet returns a network of the default configuration, with NoShare
// as given.
func benchNet(b *testing.B, noShare bool) *Net {
	b.Helper()
	cfg := DefaultConfig()
	cfg.NoShare = noShare
	n, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func BenchmarkForward(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			n := benchNet(b, bc.noShare)
			obs := benchStates(1, bc.independent)
			var batch Batch
			if err := n.ForwardTo(&batch, obs); err != nil { // warm up the buffers
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuSeconds()
			for i := 0; i < b.N; i++ {
				if err := n.ForwardTo(&batch, obs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/state")
			b.ReportMetric((cpuSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/state")
			b.ReportMetric(heapMB(), "heap-MB")
			runtime.KeepAlive(&batch)
		})
	}
}

func BenchmarkUpdate(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			n := benchNet(b, bc.noShare)
			obs := benchStates(16, bc.independent)
			actions := make([]int, len(obs))
			dl, de, dv := make([]float32, len(obs)), make([]float32, len(obs)), make([]float32, len(obs))
			for i := range obs {
				actions[i] = i % 33
				dl[i], de[i], dv[i] = -0.1, -0.01, 0.5
			}
			opt := nn.NewAdam[float32](5e-4)
			var batch Batch
			update := func() {
				if err := n.ForwardTo(&batch, obs); err != nil {
					b.Fatal(err)
				}
				n.ZeroGrad()
				if err := n.Backward(&batch, actions, dl, de, dv); err != nil {
					b.Fatal(err)
				}
				nn.ClipGradNorm(n.Params(), 0.5)
				opt.Step(n.Params())
			}
			update() // warm up the buffers
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuSeconds()
			for i := 0; i < b.N; i++ {
				update()
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/update")
			b.ReportMetric((cpuSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/update")
			b.ReportMetric(heapMB(), "heap-MB")
			runtime.KeepAlive(&batch)
			b.Logf("%+v", batch.Stats())
		})
	}
}
