package ppo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/env"
)

// fakeClock advances one second per call, so charts/SPS is reproducible.
func fakeClock() func() time.Time {
	now := time.Unix(1_700_000_000, 0)
	return func() time.Time {
		now = now.Add(time.Second)
		return now
	}
}

// train runs cfg in dir, stopping after stopAfter episodes when positive.
func train(t *testing.T, dir string, cfg Config, resume bool, stopAfter int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := Options{Clock: fakeClock(), OnEpisode: func(r EpisodeRecord) {
		if r.Episode == stopAfter {
			cancel()
		}
	}}
	var tr *Trainer
	var err error
	if resume {
		tr, err = Resume(dir, cfg.Episodes, chainEnv(t), opts)
	} else {
		tr, err = New(dir, cfg, chainEnv(t), opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	err = tr.Run(ctx)
	if cerr := tr.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if stopAfter > 0 {
		if err != context.Canceled {
			t.Fatalf("stopped run returned %v, want context.Canceled", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestResumeContinuesTheSameRun(t *testing.T) {
	cfg := smallConfig()
	cfg.Episodes = 9 // four updates of 2 episodes and a last one of 1
	straight := t.TempDir()
	train(t, straight, cfg, false, 0)

	cases := []struct {
		name  string
		stops []int // episodes after which successive runs are killed
	}{
		{"mid-batch", []int{5}},
		{"right after an update", []int{4}},
		{"before the first update", []int{1}},
		{"twice", []int{3, 7}},
	}
	want := readRunFile(t, straight, MetricsFile)
	wantCkpt := readRunFile(t, straight, CheckpointFile)
	recs, err := ReadMetrics(filepath.Join(straight, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs.Episodes) != 9 || len(recs.Updates) != 5 {
		t.Fatalf("straight run wrote %d episodes and %d updates, want 9 and 5", len(recs.Episodes), len(recs.Updates))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, stop := range c.stops {
				train(t, dir, cfg, i > 0, stop)
			}
			train(t, dir, cfg, true, 0)
			got := readRunFile(t, dir, MetricsFile)
			if !bytes.Equal(got, want) {
				gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := 0; i < len(gl) && i < len(wl); i++ {
					if gl[i] != wl[i] {
						t.Fatalf("metrics differ at line %d:\nresumed:  %s\nstraight: %s", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("resumed run wrote %d lines, straight run %d", len(gl), len(wl))
			}
			gotCkpt := readRunFile(t, dir, CheckpointFile)
			if !bytes.Equal(gotCkpt, wantCkpt) {
				t.Errorf("final checkpoints differ (%d vs %d bytes)", len(gotCkpt), len(wantCkpt))
			}
		})
	}
}

func TestTrainerWritesRecordsAndCheckpoint(t *testing.T) {
	cfg := smallConfig()
	cfg.Episodes = 4
	dir := t.TempDir()
	train(t, dir, cfg, false, 0)
	recs, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	step := 0
	for i, e := range recs.Episodes {
		step += e.Length
		if e.Episode != i+1 || e.GlobalStep != step || e.Length < 1 || e.RulesApplied > e.Length {
			t.Errorf("episode record %+v", e)
		}
		if e.StopReason != "no-op" && e.StopReason != "no candidates" && e.StopReason != "horizon" {
			t.Errorf("episode %d: stop reason %q", e.Episode, e.StopReason)
		}
		if e.InitialLatencyUS != 11 || float64(e.BestLatencyUS) > 11 || float64(e.BestSpeedup) < float64(e.Speedup) {
			t.Errorf("episode %d: latencies %v/%v, speedups %v/%v", e.Episode, e.InitialLatencyUS, e.BestLatencyUS, e.Speedup, e.BestSpeedup)
		}
	}
	for i, u := range recs.Updates {
		if u.Update != i+1 || u.Episode != 2*(i+1) || u.Epochs != cfg.Epochs || u.Steps < 2 || u.SPS <= 0 || u.LearningRate != 5e-4 {
			t.Errorf("update record %+v", u)
		}
	}
	ck, err := ReadCheckpoint(filepath.Join(dir, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	if ck.State.Episode != 4 || ck.State.Update != 2 || ck.State.GlobalStep != step || ck.State.AdamSteps == 0 || ck.adamM == nil {
		t.Errorf("checkpoint state %+v", ck.State)
	}
	if ck.Best == nil || ck.State.BestLatency >= ck.State.InitialLatency {
		t.Fatalf("no best graph in the checkpoint (state %+v)", ck.State)
	}
	if got := len(ck.Best.Graph.Nodes); time.Duration(got)*time.Microsecond != ck.State.BestLatency {
		t.Errorf("best graph has %d nodes, best latency %v", got, ck.State.BestLatency)
	}
	net, c2, err := LoadPolicy(filepath.Join(dir, CheckpointFile))
	if err != nil || c2.Hidden != cfg.Hidden || len(net.Params()) != len(ck.Net.Params()) {
		t.Fatalf("LoadPolicy: %v", err)
	}
	// Config.json records the configuration.
	if b, err := os.ReadFile(filepath.Join(dir, ConfigFile)); err != nil || !strings.Contains(string(b), `"update_every": 2`) {
		t.Errorf("config.json: %s %v", b, err)
	}
}

func TestTrainerRefusesMisuse(t *testing.T) {
	cfg := smallConfig()
	cfg.Episodes = 2
	dir := t.TempDir()
	train(t, dir, cfg, false, 0)
	if _, err := New(dir, cfg, chainEnv(t), Options{}); err == nil || !strings.Contains(err.Error(), "already holds a checkpoint") {
		t.Errorf("New over a run: %v", err)
	}
	if _, err := Resume(dir, 1, chainEnv(t), Options{}); err == nil || !strings.Contains(err.Error(), "cannot shorten") {
		t.Errorf("shortening a run: %v", err)
	}
	if _, err := Resume(t.TempDir(), 0, chainEnv(t), Options{}); err == nil {
		t.Error("resuming an empty directory succeeded")
	}
	// A metrics file shorter than the checkpoint says is refused.
	if err := os.WriteFile(filepath.Join(dir, MetricsFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Resume(dir, 4, chainEnv(t), Options{}); err == nil || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("resuming with lost metrics: %v", err)
	}
	bad := cfg
	bad.Heads = 3
	if _, err := New(t.TempDir(), bad, chainEnv(t), Options{}); err == nil || !strings.Contains(err.Error(), "--heads") {
		t.Errorf("bad config: %v", err)
	}
}

func TestTrainerRejectsConflictingEnvConfig(t *testing.T) {
	cfg := smallConfig()
	cases := []struct {
		name string
		set  func(*env.Config)
		want string // "" for no error
	}{
		{"unset fields take the PPO values", func(*env.Config) {}, ""},
		{"equal values are accepted", func(c *env.Config) { c.Horizon = cfg.Horizon }, ""},
		{"horizon", func(c *env.Config) { c.Horizon = cfg.Horizon + 1 }, "env.Config.Horizon"},
		{"feedback", func(c *env.Config) { c.FeedbackEvery = cfg.FeedbackEvery + 1 }, "env.Config.FeedbackEvery"},
		{"candidates", func(c *env.Config) { c.MaxCandidates = 3 }, "env.Config.MaxCandidates"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ec := chainEnv(t)
			tc.set(&ec)
			tr, err := New(t.TempDir(), cfg, ec, Options{})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				tr.Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func TestRunContinuesAfterCancel(t *testing.T) {
	cfg, straight := trainedRun(t, 5)
	want := readRunFile(t, straight, MetricsFile)

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	tr, err := New(dir, cfg, chainEnv(t), Options{Clock: fakeClock(), OnEpisode: func(r EpisodeRecord) {
		if r.Episode == 3 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(ctx); err != context.Canceled {
		t.Fatalf("first Run: %v", err)
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	got := readRunFile(t, dir, MetricsFile)
	// The second Run starts a new SPS window; everything else matches.
	strip := func(b []byte) string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if i := strings.Index(l, `"charts/SPS"`); i >= 0 {
				j := strings.Index(l[i:], ",")
				l = l[:i] + l[i+j+1:]
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	if strip(got) != strip(want) {
		t.Errorf("continued run differs:\n%s\nstraight:\n%s", got, want)
	}
}
