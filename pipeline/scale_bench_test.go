package pipeline

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/sysmem"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rewrite"
)

// Benchmarks of every stage of xrl optimize on the residual MLP scale
// graph (models "resmlp", 4 nodes a block) at 1,000, 5,000 and 50,000
// nodes, each reporting ns/op, cpu-ns/op (the process's CPU time, both
// cores) and peak-MB, the largest live heap seen while it ran (sampled
// every millisecond; it includes the model and what the stage keeps). docs/perf.md has the table; run with, e.g.,
//
//	go test ./pipeline -run '^$' -bench Scale -benchtime 3x
//
// The stages: reading the ONNX file (Load), binding and inferring shapes
// and checking them (Bind), folding constants (Fold), the candidates of
// the start graph with the whole-graph passes, lazy as optimize's first
// expansion (Candidates), one environment step as optimize's built-in
// agent runs it by default (Step: 32 candidates shown with their gains
// under the cost model) and the agent's policy network on the
// observation of a step (GAT). Then the stages after the search, on its
// result with one candidate applied, as optimize runs them with the run's
// sessions kept (Start.UseSessionPool): folding and verifying it on both
// runtimes (Verify), the never-slower measurement against the original
// on the default backend after that verification (NotSlower; ONNX
// Runtime when installed), and writing the chosen file (Write).

// scaleSizes are the node counts of the scale benchmarks.
var scaleSizes = []int{1_000, 5_000, 50_000}

var scaleFiles sync.Map // nodes -> the encoded model

// scaleModel writes the residual MLP of nodes nodes (built once per test
// binary) to a file of b's and returns its path.
func scaleModel(b *testing.B, nodes int) string {
	b.Helper()
	data, ok := scaleFiles.Load(nodes)
	if !ok {
		m, err := models.Build("resmlp", models.PresetPaper, models.Overrides{Layers: nodes / 4})
		if err != nil {
			b.Fatal(err)
		}
		if data, err = onnx.Encode(m); err != nil {
			b.Fatal(err)
		}
		scaleFiles.Store(nodes, data)
	}
	path := filepath.Join(b.TempDir(), fmt.Sprintf("resmlp%d.onnx", nodes))
	if err := os.WriteFile(path, data.([]byte), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// peakHeap samples the live heap until stop returns its largest value in
// MiB.
func peakHeap() (stop func() float64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	var peak atomic.Int64
	peak.Store(read())
	done := make(chan bool)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if h := read(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	}()
	return func() float64 {
		close(done)
		wg.Wait()
		if h := read(); h > peak.Load() {
			peak.Store(h)
		}
		return float64(peak.Load()) / (1 << 20)
	}
}

// benchScale runs one stage at every size: setup prepares an iteration
// (untimed) and returns the timed work.
func benchScale(b *testing.B, setup func(b *testing.B, path string) func()) {
	for _, nodes := range scaleSizes {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			path := scaleModel(b, nodes)
			peak := 0.0
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				work := setup(b, path)
				stop := peakHeap()
				c0 := cpuSeconds()
				b.StartTimer()
				work()
				b.StopTimer()
				cpu += time.Duration((cpuSeconds() - c0) * 1e9)
				peak = max(peak, stop())
			}
			b.ReportMetric(peak, "peak-MB")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

func BenchmarkScaleLoad(b *testing.B) {
	benchScale(b, func(b *testing.B, path string) func() {
		return func() {
			if _, err := ReadModel(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScaleBind(b *testing.B) {
	benchScale(b, func(b *testing.B, path string) func() {
		m, err := ReadModel(path)
		if err != nil {
			b.Fatal(err)
		}
		return func() {
			if _, err := measure.BindShapes(m, nil); err != nil {
				b.Fatal(err)
			}
			if err := m.Graph.Validate(); err != nil {
				b.Fatal(err)
			}
			if err := sysmem.CheckGraph(m.Graph); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScaleFold(b *testing.B) {
	benchScale(b, func(b *testing.B, path string) func() {
		m := loadBound(b, path)
		return func() {
			if _, _, err := rewrite.Fold(m.Graph, executor.Evaluate); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScaleCandidates(b *testing.B) {
	benchScale(b, func(b *testing.B, path string) func() {
		s := prepared(b, path)
		return func() {
			if _, err := rewrite.CandidatesOfLazy(s.Engine, s.Model.Graph, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScaleStep(b *testing.B) {
	benchScale(b, func(b *testing.B, path string) func() {
		e, obs := agentEnv(b, path)
		return func() {
			if _, _, _, _, _, err := e.Step(firstCandidate(obs)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScaleGAT(b *testing.B) {
	benchScale(b, func(b *testing.B, path string) func() {
		e, obs := agentEnv(b, path)
		net, _, _ := builtinAgent(b)
		// The network has seen the previous observation, as in a rollout.
		if _, _, _, err := net.Act(obs, nil, true); err != nil {
			b.Fatal(err)
		}
		next, _, _, _, _, err := e.Step(firstCandidate(obs))
		if err != nil {
			b.Fatal(err)
		}
		return func() {
			if _, _, _, err := net.Act(next, nil, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScaleVerify(b *testing.B) {
	benchScale(b, func(b *testing.B, path string) func() {
		s, best := searched(b, path)
		return func() {
			pool := sessionPool(b, s, path)
			defer pool.Close()
			if _, err := s.Finish(io.Discard, best, 0, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScaleNotSlower(b *testing.B) {
	benchScale(b, func(b *testing.B, path string) func() {
		s, best := searched(b, path)
		pool := sessionPool(b, s, path)
		out, err := s.Finish(io.Discard, best, 0, 1)
		if err != nil {
			b.Fatal(err)
		}
		return func() {
			defer pool.Close()
			if _, _, err := s.ChooseNotSlower(io.Discard, path, out, Measurement{}, 0, 1, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScaleWrite(b *testing.B) {
	benchScale(b, func(b *testing.B, path string) func() {
		s, best := searched(b, path)
		out := *s.Orig
		out.Graph = best
		dst := filepath.Join(b.TempDir(), "out.onnx")
		return func() {
			if err := s.WriteModel(dst, path, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// searched returns the start of the model at path and its folded graph
// with the first candidate applied, as a search's result.
func searched(b *testing.B, path string) (*Start, *graph.Graph) {
	b.Helper()
	s := prepared(b, path)
	cands, err := rewrite.CandidatesOfLazy(s.Engine, s.Model.Graph, false)
	if err != nil {
		b.Fatal(err)
	}
	if len(cands) == 0 {
		return s, s.Model.Graph
	}
	return s, cands[0].Materialize()
}

// sessionPool makes s keep its sessions, the original loaded from path.
func sessionPool(b *testing.B, s *Start, path string) *measure.SessionPool {
	b.Helper()
	pool, err := s.UseSessionPool(path)
	if err != nil {
		b.Fatal(err)
	}
	return pool
}

// loadBound reads and binds the model at path.
func loadBound(b *testing.B, path string) *graph.Model {
	b.Helper()
	m, err := LoadBound(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// prepared is Prepare for the model at path.
func prepared(b *testing.B, path string) *Start {
	b.Helper()
	s, err := PrepareModel(path, loadBound(b, path), nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// agentEnv returns the environment of optimize's built-in agent on the
// model at path, reset, with its first observation.
func agentEnv(b *testing.B, path string) (*env.Env, *env.Observation) {
	b.Helper()
	s := prepared(b, path)
	_, opts, _ := builtinAgent(b)
	lm, err := objectiveModel("", "cost", Measurement{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := s.policyEnv(lm, opts)
	if err != nil {
		b.Fatal(err)
	}
	obs, _, err := e.Reset(1)
	if err != nil {
		b.Fatal(err)
	}
	return e, obs
}

// firstCandidate is the action applying the first candidate (No-Op when
// there is none).
func firstCandidate(obs *env.Observation) int {
	if len(obs.Candidates) == 0 {
		return obs.NoOp()
	}
	return 0
}
