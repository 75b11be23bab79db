package pipeline

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// pacedBackend runs every model by spinning for a time of its own: pace
// returns it. It stands in for ONNX Runtime where a test needs models
// whose order of speed is known.
type pacedBackend struct {
	pace func(*graph.Model) time.Duration
}

func (b pacedBackend) Name() string { return "paced" }

func (b pacedBackend) Load(m *graph.Model) (measure.Session, error) {
	return pacedSession(b.pace(m)), nil
}

type pacedSession time.Duration

func (p pacedSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	for t0 := time.Now(); time.Since(t0) < time.Duration(p); {
	}
	return nil, nil
}

func (pacedSession) Close() error { return nil }

// pacedStart is the frozen encoder's Start (frozenEncoder) timing on a
// pacedBackend: the original at orig a run, every other model at other.
func pacedStart(t *testing.T, orig, other time.Duration) (*Start, *graph.Model) {
	t.Helper()
	s, frozen := frozenEncoder(t)
	origHash := s.Orig.Graph.CanonicalHash()
	be := pacedBackend{pace: func(m *graph.Model) time.Duration {
		if m.Graph.CanonicalHash() == origHash {
			return orig
		}
		return other
	}}
	in, err := measure.RandomInputs(s.Orig.Graph, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.measuring.once.Do(func() { s.measuring.be, s.measuring.in = be, in })
	return s, frozen
}

// TestChooseNotSlowerChecksTheModelItPicks: the model the timing picks is
// checked at the other shapes before it is written, and when it fails
// there the model it falls back to is timed in its place; when the
// original is written, nothing is checked beyond the tuning shape.
func TestChooseNotSlowerChecksTheModelItPicks(t *testing.T) {
	m := Measurement{Measure: measure.MeasureOptions{MaxTime: 2 * time.Second}}
	t.Run("falls back", func(t *testing.T) {
		s, frozen := pacedStart(t, 3*time.Millisecond, 2*time.Millisecond)
		s.Sweep = nil
		good := s.Model.Clone()
		chain := []*graph.Model{good, frozen}
		var log bytes.Buffer
		rep, times := &Report{}, &Times{}
		check := s.everywhereCheck(&log, Config{Tolerance: 1e-4}, rep, times, chain, nil)
		checked := 0
		counted := func(m *graph.Model) (*graph.Model, error) { checked++; return check(m) }
		out, d, err := s.ChooseNotSlower(&log, "", frozen, m, 1e-4, 1, counted)
		if err != nil {
			t.Fatal(err)
		}
		if out != good || d.Choice != measure.ChooseOptimised {
			t.Errorf("wrote the %s model (the good one: %v), want the good one optimised\n%s", d.Choice, out == good, log.String())
		}
		if n := strings.Count(log.String(), "latency (measured, interleaved)"); n != 2 || checked != 2 {
			t.Errorf("timed %d times, checked %d times; want the frozen model and the good one timed and checked\n%s", n, checked, log.String())
		}
		if !strings.Contains(log.String(), "does not verify at the other shapes") || times.Everywhere <= 0 {
			t.Errorf("the frozen model's failure is not reported, or its time not counted (%v)\n%s", times.Everywhere, log.String())
		}
	})
	t.Run("original written", func(t *testing.T) {
		s, frozen := pacedStart(t, 2*time.Millisecond, 2*time.Millisecond)
		var log bytes.Buffer
		checked := 0
		out, d, err := s.ChooseNotSlower(&log, "", frozen, m, 1e-4, 1, func(m *graph.Model) (*graph.Model, error) { checked++; return m, nil })
		if err != nil {
			t.Fatal(err)
		}
		if out != s.Orig || d.Choice != measure.ChooseOriginal || checked != 0 {
			t.Errorf("wrote the %s model, checked %d models; want the original, none checked\n%s", d.Choice, checked, log.String())
		}
	})
}
