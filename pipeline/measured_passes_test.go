package pipeline

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/rewrite"
)

// smallDecoder unpacks the small PyTorch-exported GPT-style decoder of
// rewrite's testdata (two layers, attention and a causal mask) and
// prepares it at batch 1, 8 positions.
func smallDecoder(t *testing.T) *Start {
	t.Helper()
	b := graphtest.Gunzip(t, "../rewrite/testdata/decoder_lm_small.onnx.gz")
	path := filepath.Join(t.TempDir(), "decoder.onnx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Prepare(path, map[string][]int{"input_ids": {1, 8}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMeasuredPasses(t *testing.T) {
	s := smallDecoder(t)
	m := Measurement{Measure: measure.MeasureOptions{Runs: 3}}
	cases := []struct {
		name     string
		passes   []string
		allowed  []string
		wantErr  string
		wantLog  []string
		noChange bool
		joint    bool
		// failCheck makes every pass's float64 check fail.
		failCheck bool
	}{
		{name: "unknown pass", passes: []string{"no-such-pass"}, wantErr: `unknown pass "no-such-pass"`},
		{name: "none", passes: nil, noChange: true},
		{name: "not allowed by --rules", passes: DefaultMeasuredPasses, allowed: []string{"transpose-unit-to-reshape"}, noChange: true},
		{name: "default", passes: DefaultMeasuredPasses,
			wantLog: []string{"measured passes: verifying the search's result with ort-fusion-forms, fuse-attention\n", "verified on " + trialRuntimes()[0],
				"measured passes: timing the search's result with ort-fusion-forms, fuse-attention against the model chosen so far\n", "after/before",
				"measured passes: verifying the model chosen so far with rows-2d\n"}},
		// The same, timed together as a model of a millisecond or more
		// is: the search's result with the fusions and with rows-2d.
		{name: "together", passes: DefaultMeasuredPasses, joint: true,
			wantLog: []string{"measured passes: timing the search's result with ort-fusion-forms, fuse-attention; the model chosen so far with rows-2d against the model chosen so far, together\n",
				"after/before"}},
		// A result measurably faster whose passes do not check in
		// float64 is left out, the model given kept.
		{name: "the checks fail", passes: DefaultMeasuredPasses, failCheck: true, noChange: true,
			wantLog: []string{"but a pass's result does not compute what the graph before it does: ort-fusion-forms: made to fail"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.failCheck {
				old := measuredPassCheck
				measuredPassCheck = func(*Start, uint64) rewrite.Checker {
					return func(a, b *graph.Graph, tol float64) error { return errors.New("made to fail") }
				}
				t.Cleanup(func() { measuredPassCheck = old })
			}
			if tc.joint {
				old := jointTrialLatency
				jointTrialLatency = 0
				t.Cleanup(func() { jointTrialLatency = old })
			}
			s := s
			if tc.failCheck {
				// Timed on a backend where every pass's result runs at
				// half the given model's time, so that each is shown
				// faster whatever the machine is doing, and its check
				// is reached.
				s = smallDecoder(t)
				given := s.Model.Graph.CanonicalHash()
				be := pacedBackend{pace: func(m *graph.Model) time.Duration {
					if m.Graph.CanonicalHash() == given {
						return 2 * time.Millisecond
					}
					return time.Millisecond
				}}
				s.measuring.once.Do(func() { s.measuring.be, s.measuring.in = be, nil })
			}
			var log bytes.Buffer
			chain, trials, err := s.MeasuredPasses(&log, s.Model, tc.passes, tc.allowed, m, 1e-4, 1)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			if len(chain) == 0 || chain[0] != s.Model {
				t.Fatalf("the models chosen in turn do not start with the one given: %d of them", len(chain))
			}
			got := chain[len(chain)-1]
			if tc.failCheck {
				for _, w := range tc.wantLog {
					if !strings.Contains(log.String(), w) {
						t.Errorf("log lacks %q:\n%s", w, log.String())
					}
				}
				if got != s.Model || slices.ContainsFunc(trials, func(p PassTrial) bool { return p.Kept }) {
					t.Errorf("kept a result whose checks failed:\n%s", log.String())
				}
				return
			}
			if tc.noChange {
				if got != s.Model || log.Len() != 0 {
					t.Fatalf("changed the model or printed %q with nothing to try", log.String())
				}
				return
			}
			if testing.Verbose() {
				t.Log(log.String())
			}
			for _, w := range tc.wantLog {
				if !strings.Contains(log.String(), w) {
					t.Errorf("log lacks %q:\n%s", w, log.String())
				}
			}
			kept := strings.Contains(log.String(), " kept: ")
			if kept != slices.ContainsFunc(trials, func(p PassTrial) bool { return p.Kept }) {
				t.Errorf("kept=%v but the trials say otherwise: %+v", kept, trials)
			}
			if kept == (got == s.Model) {
				t.Fatalf("kept=%v but returned the input model=%v:\n%s", kept, got == s.Model, log.String())
			}
			// Whatever is returned computes what the original does.
			if err := Verify(io.Discard, s.Orig, got, 1e-4, 7); err != nil {
				t.Fatalf("returned model does not verify: %v", err)
			}
		})
	}
}

// TestTrialKeeps checks which timings keep a trial's result: measurably
// faster, or, for a pass other than a layout pass, leaning faster (1%
// lower at the medians, not shown 2% slower).
func TestTrialKeeps(t *testing.T) {
	tr := &passTrials{layouts: []rewrite.Pass{{Name: "rows-2d", Layout: true}}}
	fusion := &passCandidate{applied: []string{"ort-fusion-forms"}}
	layout := &passCandidate{applied: []string{"rows-2d"}}
	for _, tc := range []struct {
		name          string
		ratio, lo, hi float64
		c             *passCandidate
		want          bool
	}{
		{"measurably faster", 0.95, 0.93, 0.97, fusion, true},
		{"measurably faster layout", 0.95, 0.93, 0.97, layout, true},
		{"leaning faster", 0.979, 0.950, 1.014, fusion, true},
		{"leaning faster layout", 0.979, 0.950, 1.014, layout, false},
		{"interval too wide", 0.979, 0.940, 1.042, fusion, false},
		{"gain under 1%", 0.995, 0.982, 1.007, fusion, false},
		{"at the margin", 0.98, 0.95, 1.02, fusion, false},
		{"slower", 1.03, 1.01, 1.05, fusion, false},
	} {
		cmp := measure.Comparison{Ratio: tc.ratio, RatioLo: tc.lo, RatioHi: tc.hi}
		if got := tr.keeps(tc.c, cmp); got != tc.want {
			t.Errorf("%s: keeps = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTrialMaxTime checks the trials' caps: the first trial's 5 s, a
// later one's 1.2 s for a model of milliseconds, and 40 pairs of runs, up
// to 5 s, for one of ViT-B/16's 90 ms.
func TestTrialMaxTime(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		latency, want time.Duration
	}{
		{0, PassTrialMaxTime},
		{6 * ms, LaterTrialMaxTime},
		{40 * ms, 3200 * ms},
		{90 * ms, PassTrialMaxTime},
	} {
		if got := trialMaxTime(tc.latency); got != tc.want {
			t.Errorf("trialMaxTime(%v) = %v, want %v", tc.latency, got, tc.want)
		}
	}
}

// TestTrialCaps: the passes on the search's result get the first
// trial's cap, whatever is known; every other trial (the folded base's,
// the layout passes') gets a later trial's, for the latency of the model
// chosen so far, or of out's probe before any trial is timed, and 1.2 s
// when neither is known, also when it is the first timed.
func TestTrialCaps(t *testing.T) {
	ms := time.Millisecond
	searched := &passCandidate{base: trialBase{searched: true}}
	folded := &passCandidate{base: trialBase{label: "the folded model"}}
	for _, tc := range []struct {
		c               *passCandidate
		latency, probed time.Duration
		want            time.Duration
	}{
		{searched, 0, 0, PassTrialMaxTime},
		{searched, 6 * ms, 6 * ms, PassTrialMaxTime},
		{folded, 0, 0, LaterTrialMaxTime},
		{folded, 0, 6 * ms, LaterTrialMaxTime},
		{folded, 0, 40 * ms, 3200 * ms},
		{folded, 40 * ms, 6 * ms, 3200 * ms},
		{folded, 0, 90 * ms, PassTrialMaxTime},
	} {
		tr := &passTrials{latency: tc.latency, probed: tc.probed}
		if got := tr.capOf(tc.c); got != tc.want {
			t.Errorf("searched %v, latency %v, probed %v: cap %v, want %v", tc.c.base.searched, tc.latency, tc.probed, got, tc.want)
		}
	}
}

// TestRetryLayouts: the layout passes are tried again on the model the
// other trials chose only when they were not timed with those trials, or
// changed nothing on the model those trials started from.
func TestRetryLayouts(t *testing.T) {
	out, other := &graph.Model{}, &graph.Model{}
	timed := &passCandidate{model: &graph.Model{}}
	for _, c := range []struct {
		name       string
		layoutCand *passCandidate
		chosen     *graph.Model
		want       bool
	}{
		{"trials one after the other", nil, other, true},
		{"timed with the others and left out, another kept", timed, other, false},
		{"timed with the others, nothing kept", timed, out, false},
		{"timed with the others and kept", timed, timed.model, false},
		{"no change on out, another kept", &passCandidate{}, other, true},
		{"no change on out, nothing kept", &passCandidate{}, out, false},
	} {
		if got := retryLayouts(c.layoutCand, c.chosen, out); got != c.want {
			t.Errorf("%s: retryLayouts = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestTimedAgain: a trial undecided at a cap shorter than
// PassTrialMaxTime, leaning PassTrialExtendLean or more faster, is timed
// again; one stopped for another reason, leaning less, or at the longer
// cap is not.
func TestTimedAgain(t *testing.T) {
	leaning := measure.Comparison{Verdict: measure.Undecided, Ratio: 0.92, RatioLo: 0.85, RatioHi: 1.03}
	with := func(f func(*measure.Comparison)) measure.Comparison { c := leaning; f(&c); return c }
	for _, tc := range []struct {
		name   string
		cmp    measure.Comparison
		capped time.Duration
		want   bool
	}{
		{"leaning at the later cap", leaning, LaterTrialMaxTime, true},
		{"leaning at the first trial's cap", leaning, PassTrialMaxTime, false},
		{"leaning too little", with(func(c *measure.Comparison) { c.Ratio = 0.975 }), LaterTrialMaxTime, false},
		{"futile", with(func(c *measure.Comparison) { c.Futile = true }), LaterTrialMaxTime, false},
		{"small gain", with(func(c *measure.Comparison) { c.SmallGain = true }), LaterTrialMaxTime, false},
		{"dominated", with(func(c *measure.Comparison) { c.Dominated = true }), LaterTrialMaxTime, false},
		{"decided", with(func(c *measure.Comparison) { c.Verdict = measure.Faster; c.RatioHi = 0.99 }), LaterTrialMaxTime, false},
	} {
		if got := timedAgain(tc.cmp, tc.capped); got != tc.want {
			t.Errorf("%s: timedAgain = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTrialsTimedAgain: a later trial left undecided at its cap while
// leaning faster is timed again with PassTrialMaxTime, on its own and
// after trials timed together, and kept on that second timing alone;
// both timings are in the report.
func TestTrialsTimedAgain(t *testing.T) {
	ms := time.Millisecond
	undecided := measure.Comparison{A: measure.Stats{Median: 4 * ms}, B: measure.Stats{Median: 3680 * time.Microsecond}, Verdict: measure.Undecided, Ratio: 0.92, RatioLo: 0.85, RatioHi: 1.03}
	faster := measure.Comparison{A: measure.Stats{Median: 4 * ms}, B: measure.Stats{Median: 3600 * time.Microsecond}, Verdict: measure.Faster, Ratio: 0.9, RatioLo: 0.86, RatioHi: 0.95}
	even := measure.Comparison{A: measure.Stats{Median: 4 * ms}, B: measure.Stats{Median: 4 * ms}, Verdict: measure.Undecided, Ratio: 1, RatioLo: 0.95, RatioHi: 1.05}
	for _, tc := range []struct {
		name  string
		joint bool
		// second is the second timing: the trial is kept only when it
		// shows the model faster.
		second   measure.Comparison
		wantKept bool
	}{
		{"on its own, faster the second time", false, faster, true},
		{"on its own, even the second time", false, even, false},
		{"together, faster the second time", true, faster, true},
		{"together, even the second time", true, even, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, frozen := pacedStart(t, 4*ms, 4*ms)
			out := s.Model
			var log bytes.Buffer
			tr := &passTrials{s: s, w: &log, chain: []*graph.Model{out}, tried: map[graph.Hash]bool{}, latency: 4 * ms}
			var caps []time.Duration
			tr.compare = func(a, b *graph.Model, m Measurement) (measure.Comparison, error) {
				caps = append(caps, m.Measure.MaxTime)
				if len(caps) == 1 {
					return undecided, nil
				}
				return tc.second, nil
			}
			tr.compareMany = func(_ measure.Session, bs []measure.Session, _ map[string]*graph.Tensor, opts []measure.MeasureOptions) ([]measure.Comparison, error) {
				caps = append(caps, opts[1].MaxTime)
				return []measure.Comparison{even, undecided}, nil
			}
			folded := &passCandidate{base: trialBase{label: "the folded model"}, applied: []string{"fuse"}, what: "the folded model with fuse", model: frozen}
			var err error
			if tc.joint {
				other := &passCandidate{base: trialBase{label: "the search's result", searched: true}, applied: []string{"fuse"}, what: "the search's result with fuse", model: frozen}
				err = tr.joint([]*passCandidate{other, folded})
			} else {
				err = tr.one(folded)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(caps, []time.Duration{LaterTrialMaxTime, PassTrialMaxTime}) {
				t.Errorf("timed with caps %v, want %v then %v\n%s", caps, LaterTrialMaxTime, PassTrialMaxTime, log.String())
			}
			var again, kept int
			for _, trial := range tr.trials {
				if trial.Base == "the folded model" && trial.Outcome == "undecided at its cap, leaning faster: timed again" {
					again++
				}
				if trial.Kept {
					kept++
				}
			}
			if again != 1 || (kept == 1) != tc.wantKept || kept > 1 || (tr.chosen() == frozen) != tc.wantKept {
				t.Errorf("%d trials timed again, %d kept (%+v); want 1 timed again, kept %v\n%s", again, kept, tr.trials, tc.wantKept, log.String())
			}
			if !strings.Contains(log.String(), "leans faster at its 1.2s cap") {
				t.Errorf("the second timing is not announced\n%s", log.String())
			}
		})
	}
}
