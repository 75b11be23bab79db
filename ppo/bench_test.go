package ppo

import (
	"runtime"
	"testing"

	"github.com/xrl-dev/xrl/measure"

	"github.com/xrl-dev/xrl/executor"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules"
)

// The PPO update benchmark of docs/perf.md: one minibatch of 16 real
// states of a zoo model (cpu preset), end to end through the trainer:
// forward pass, loss, backward pass, gradient clip and Adam step, with the
// default network (5 GAT layers, hidden 64, heads MLPs [256 64]).
//
//	go test ./ppo -run '^$' -bench Update16 -benchtime 10x

func benchTrainer(b *testing.B, model string) (*Trainer, []Sample) {
	b.Helper()
	set, err := rules.Load()
	if err != nil {
		b.Fatal(err)
	}
	m, err := models.Build(model, models.PresetCPU, models.Overrides{})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Graph.BindShapes(nil); err != nil {
		b.Fatal(err)
	}
	if m.Graph, _, err = rewrite.Fold(m.Graph, executor.Evaluate); err != nil {
		b.Fatal(err)
	}
	eng := rewrite.NewEngine(set, rewrite.Options{MaxNodes: 2 * len(m.Graph.Nodes), Eval: executor.Evaluate})
	cfg := DefaultConfig()
	cfg.Horizon = 16
	tr, err := New(b.TempDir(), cfg, env.Config{Model: m, Rewriter: eng, Latency: measure.Roofline{}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tr.Close() })
	// Collect states with the untrained policy until there are 16.
	for len(tr.agent.Steps) < 16 {
		if _, err := tr.episode(); err != nil {
			b.Fatal(err)
		}
	}
	return tr, tr.agent.Steps[:16]
}

func BenchmarkUpdate16(b *testing.B) {
	for _, model := range []string{"bert", "resnext50"} {
		b.Run(model, func(b *testing.B) {
			tr, steps := benchTrainer(b, model)
			gs := make([]Step, len(steps))
			cands, nodes := 0, 0
			for i, s := range steps {
				gs[i] = s.Step
				gs[i].End = gs[i].End || i == len(steps)-1
				cands += len(s.Obs.Candidates)
				for _, g := range append(s.Obs.Candidates, s.Obs.Current) {
					nodes += g.NumNodes()
				}
			}
			adv, ret := GAE(gs, tr.cfg.Gamma, tr.cfg.GAELambda)
			idx := make([]int, len(steps))
			for i := range idx {
				idx[i] = i
			}
			c := LossCoefs{ClipCoef: tr.cfg.ClipCoef, VFCoef: tr.cfg.VFCoef, EntCoef: tr.cfg.EntCoef, ClipValueLoss: true}
			update := func() {
				if _, _, err := tr.updater().minibatch(steps, idx, adv, ret, c); err != nil {
					b.Fatal(err)
				}
			}
			update() // warm up the buffers
			b.ReportAllocs()
			b.ResetTimer()
			cpu := processCPU()
			for i := 0; i < b.N; i++ {
				update()
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/update")
			b.ReportMetric((processCPU()-cpu)*1e3/float64(b.N), "cpu-ms/update")
			b.ReportMetric(float64(cands)/16, "candidates/state")
			b.ReportMetric(float64(nodes)/16, "nodes/state")
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
			b.Logf("%+v", tr.batch.Stats())
		})
	}
}
