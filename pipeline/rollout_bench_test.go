package pipeline

import (
	"io"
	"testing"

	"github.com/xrl-dev/xrl/gat"
	"github.com/xrl-dev/xrl/measure"
)

// corpusModel is a model of testdata/corpus (scripts/gen-corpus) with the
// shapes xrl optimize binds for it.
type corpusModel struct {
	name   string
	shapes map[string][]int
}

func (c corpusModel) path() string { return "../testdata/corpus/" + c.name + ".onnx" }

// rolloutStart prepares m and expands its start graph once, as xrl
// optimize does before the search.
func rolloutStart(tb testing.TB, m corpusModel) *Start {
	tb.Helper()
	s, err := PrepareWith(m.path(), m.shapes, RuleChoice{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Engine.Candidates(s.Model.Graph); err != nil {
		tb.Fatal(err)
	}
	return s
}

// agentRollout runs xrl optimize's rollout of the built-in agent on s:
// one greedy rollout with the roofline model, patience 3, seed 1.
func agentRollout(tb testing.TB, s *Start) *PolicyResult {
	tb.Helper()
	net, opts, lm := builtinAgent(tb)
	opts.Seed, opts.Patience = 1, 3
	res, err := s.RunPolicy(io.Discard, net, lm, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// builtinAgent returns the built-in agent with the rollout options it
// was trained with and the roofline latency model optimize runs it with.
func builtinAgent(tb testing.TB) (*gat.Net, PolicyOptions, measure.LatencyModel) {
	tb.Helper()
	net, pcfg, err := LoadPolicy("builtin")
	if err != nil {
		tb.Fatal(err)
	}
	lm, err := measure.NewLatencyModel(measure.RooflineName, measure.BackendOptions{}, measure.MeasureOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return net, PolicyOptions{Horizon: pcfg.Horizon, MaxCandidates: pcfg.MaxCandidates,
		CandidateGains: pcfg.CandidateGains, NoOpAfter: pcfg.NoOpAfter}, lm
}

// BenchmarkAgentRollout times the built-in agent's greedy rollout as xrl
// optimize runs it (roofline model, patience 3), after the start graph's
// first expansion (not timed), on corpus models.
func BenchmarkAgentRollout(b *testing.B) {
	for _, m := range []corpusModel{
		{name: "vit_tiny"},
		{name: "squeezenet1_1"},
		{name: "resnet18"},
		{name: "mobilenet_v2"},
		{name: "gpt_decoder", shapes: map[string][]int{"ids": {1, 32}}},
		{name: "encoder_classifier", shapes: map[string][]int{"ids": {1, 128}}},
	} {
		b.Run(m.name, func(b *testing.B) {
			steps := 0
			for i := 0; i < b.N; i++ {
				// A fresh start every time: the rewriter remembers the
				// results of passes per graph, as within one xrl optimize
				// run, and a second rollout would find them all.
				b.StopTimer()
				s := rolloutStart(b, m)
				b.StartTimer()
				steps += agentRollout(b, s).Steps
			}
			b.ReportMetric(float64(steps)/float64(b.N), "steps/rollout")
		})
	}
}
