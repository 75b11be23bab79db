package ort

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

func init() {
	measure.RegisterLatencyModel("profile", func(bo measure.BackendOptions, mo measure.MeasureOptions) (measure.LatencyModel, error) {
		b, err := New(bo)
		if err != nil {
			return nil, err
		}
		// A profiled graph's latency is timed as "ort" times it, with the
		// profiler off; the profile apportions it.
		timer := &measure.Measured{Backend: b, Options: mo, Sessions: measure.ProfileTimerSessions}
		return measure.NewProfileModel(b, measure.ProfileOptions{Timer: timer}), nil
	})
}

// Profile runs m in a session with ONNX Runtime's profiler on: warmup
// runs, then runs profiled runs. It returns each node's lower-quartile
// kernel time over the profiled runs and the lower-quartile time of a
// whole run (see parseTrace), which includes the profiler's own cost per
// node: measure.ProfileModel's Timer gives the latency without it.
func (b *Backend) Profile(m *graph.Model, warmup, runs int) (*measure.Profile, error) {
	return profileRuns(m, warmup, runs, func(prefix string) (*session, error) { return b.load(m, prefix) })
}

// ProfileONNX profiles the serialised model data as it is, as Profile
// profiles a model; m is that model as read and bound (it names the
// session's inputs and outputs and shapes the random inputs). It is
// measure.BytesProfiler: the original of xrl optimize is profiled as the
// file the user has, as LoadONNX times it.
func (b *Backend) ProfileONNX(data []byte, m *graph.Model, warmup, runs int) (*measure.Profile, error) {
	return profileRuns(m, warmup, runs, func(prefix string) (*session, error) {
		opts, err := b.sessionOptions(b.optLevel)
		if err != nil {
			return nil, err
		}
		defer opts.Destroy()
		if err := opts.EnableProfiling(prefix); err != nil {
			return nil, fmt.Errorf("enabling ONNX Runtime's profiler: %w", err)
		}
		return newSession(data, opts, m)
	})
}

// profileRuns opens a session with open, its profiler writing to files
// named after the prefix it is given (in a temporary directory removed
// afterwards), runs it on random inputs for m warmup+runs times and
// returns the parsed trace without the warm-up runs.
func profileRuns(m *graph.Model, warmup, runs int, open func(prefix string) (*session, error)) (*measure.Profile, error) {
	if runs < 1 {
		return nil, fmt.Errorf("profiling needs at least one run, got %d", runs)
	}
	dir, err := os.MkdirTemp("", "xrl-profile-")
	if err != nil {
		return nil, fmt.Errorf("directory for ONNX Runtime's profile: %w", err)
	}
	defer os.RemoveAll(dir)
	s, err := open(filepath.Join(dir, "trace"))
	if err != nil {
		return nil, err
	}
	in, err := measure.RandomInputs(m.Graph, 1)
	if err != nil {
		s.Close()
		return nil, err
	}
	for i := 0; i < warmup+runs; i++ {
		if err := s.RunDiscard(in); err != nil {
			s.Close()
			return nil, err
		}
	}
	// ONNX Runtime writes the trace when the session is destroyed.
	if err := s.Close(); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "trace*.json"))
	if err != nil || len(files) != 1 {
		return nil, fmt.Errorf("ONNX Runtime wrote no profile trace in %s (%v)", dir, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return nil, err
	}
	p, err := parseTrace(data, warmup)
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime profile trace %s: %w", filepath.Base(files[0]), err)
	}
	return p, nil
}

// traceEvent is one event of ONNX Runtime's Chrome-format trace.
type traceEvent struct {
	Cat  string  `json:"cat"`
	Name string  `json:"name"`
	Ts   float64 `json:"ts"`  // microseconds
	Dur  float64 `json:"dur"` // microseconds
	Args struct {
		OpName string `json:"op_name"`
	} `json:"args"`
}

// kernelSuffix ends the name of a node's kernel event.
const kernelSuffix = "_kernel_time"

// parseTrace reduces a trace to per-node times: runs are the "model_run"
// session events; the first skip are dropped; of the rest, each node's
// lower-quartile time is kept.
func parseTrace(data []byte, skip int) (*measure.Profile, error) {
	var events []traceEvent
	if err := json.Unmarshal(data, &events); err != nil {
		return nil, err
	}
	type run struct {
		start, end float64
		nodes      map[string]float64
	}
	var runs []*run
	for _, e := range events {
		if e.Cat == "Session" && e.Name == "model_run" {
			runs = append(runs, &run{start: e.Ts, end: e.Ts + e.Dur, nodes: map[string]float64{}})
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].start < runs[j].start })
	if len(runs) <= skip {
		return nil, fmt.Errorf("%d runs recorded, want more than %d", len(runs), skip)
	}
	ops := map[string]string{}
	var order []string
	for _, e := range events {
		if e.Cat != "Node" || !strings.HasSuffix(e.Name, kernelSuffix) {
			continue
		}
		i := sort.Search(len(runs), func(i int) bool { return runs[i].end >= e.Ts })
		if i == len(runs) || runs[i].start > e.Ts {
			continue
		}
		name := strings.TrimSuffix(e.Name, kernelSuffix)
		if _, ok := ops[name]; !ok {
			ops[name] = e.Args.OpName
			order = append(order, name)
		}
		runs[i].nodes[name] += e.Dur
	}
	// Each node (and the run) counts with the lower quartile of its times
	// over the timed runs: other processes only add time, and on a busy
	// machine few runs escape them entirely, while most nodes run
	// undisturbed in some quarter of the runs.
	timed := runs[skip:]
	us := func(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }
	lowQuartile := func(vs []float64) float64 {
		sort.Float64s(vs)
		return vs[(len(vs)-1)/4]
	}
	vs := make([]float64, len(timed))
	for i, r := range timed {
		vs[i] = r.end - r.start
	}
	p := &measure.Profile{Total: us(lowQuartile(vs))}
	for _, name := range order {
		for i, r := range timed {
			vs[i] = r.nodes[name]
		}
		p.Nodes = append(p.Nodes, measure.NodeTime{Name: name, Op: ops[name], Time: us(lowQuartile(vs))})
	}
	return p, nil
}
