package env

import (
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/nodecost"
)

// rankTimes charges a node 1µs per input and 1ns per dimension of its
// first output.
type rankTimes struct{}

func (rankTimes) OpTime(_ *graph.Model, n *graph.Node) (time.Duration, error) {
	d := time.Duration(len(n.Inputs)) * time.Microsecond
	if o := n.Output(0); o != nil {
		d += time.Duration(len(o.Shape))
	}
	return d, nil
}

// timedLatency is the latency model summing a Timer's node times; calls
// counts the graphs it summed.
type timedLatency struct {
	t     *nodecost.Timer
	calls *atomic.Int64
}

func (timedLatency) Name() string { return "timed" }

func (l timedLatency) Latency(m *graph.Model) (measure.Stats, error) {
	l.calls.Add(1)
	d, err := l.t.Latency(m)
	return measure.Stats{N: 1, Median: d}, err
}

// TestNodeTimesKeepGains runs episodes with candidate gains scored on the
// candidates' graphs and from their changes (Config.NodeTimes): every
// observation shows the same gains; from the changes, the lazy candidates
// are scored without summing their graphs (about one whole-graph sum an
// observation, the current graph's; before the candidates were scored
// ahead of being built, every candidate's graph was summed).
func TestNodeTimesKeepGains(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    models.Overrides
	}{{"bert", models.Overrides{}}, {"resmlp", models.Overrides{Layers: 80}}} {
		m, err := models.Build(tc.name, models.PresetCPU, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		var gains [2][][]float32
		var sums [2]int64
		for i, times := range []bool{false, true} {
			timer := nodecost.NewTimer(rankTimes{})
			var calls atomic.Int64
			cfg := Config{Model: m, Rewriter: ruleEngine(t, 0),
				Latency: measure.Cached(timedLatency{timer, &calls}), MaxCandidates: 16, CandidateGains: true, Horizon: 5}
			if times {
				cfg.NodeTimes = timer
			}
			e, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			obs, _, err := e.Reset(3)
			for err == nil && len(obs.Candidates) > 0 {
				var g []float32
				for _, c := range obs.Candidates {
					g = append(g, c.Global[0])
				}
				gains[i] = append(gains[i], g)
				var term, trunc bool
				obs, _, term, trunc, _, err = e.Step(len(obs.Candidates) / 2)
				if term || trunc {
					break
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			sums[i] = calls.Load()
		}
		if len(gains[0]) == 0 || !reflect.DeepEqual(gains[0], gains[1]) {
			t.Errorf("%s: gains on the graphs %v, from the changes %v", tc.name, gains[0], gains[1])
		}
		t.Logf("%s: %d observations; whole graphs summed: %d on the graphs, %d from the changes", tc.name, len(gains[0]), sums[0], sums[1])
		if sums[1] > int64(2*len(gains[1])) {
			t.Errorf("%s: %d whole graphs summed for %d observations from the changes: the candidates were scored on their graphs", tc.name, sums[1], len(gains[1]))
		}
	}
}
