package pipeline

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
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
		// A user's input set at another sequence length: the model the
		// timing left out is still checked on it, and fails there.
		ids := graph.NewTensor(graph.Int64, 1, 16)
		s.Inputs = []inputs.Set{{Name: "mine", Tensors: map[string]*graph.Tensor{"ids": ids}, Order: []string{"ids"}}}
		var log bytes.Buffer
		checked := 0
		out, d, err := s.ChooseNotSlower(&log, "", frozen, m, 1e-4, 1, func(m *graph.Model) (*graph.Model, error) { checked++; return m, nil })
		if err != nil {
			t.Fatal(err)
		}
		if out != s.Orig || d.Choice != measure.ChooseOriginal || checked != 0 {
			t.Errorf("wrote the %s model, checked %d models; want the original, none checked\n%s", d.Choice, checked, log.String())
		}
		if !strings.Contains(log.String(), "does not compute what the original does on them") {
			t.Errorf("the frozen model was not checked on the user's set\n%s", log.String())
		}
	})
}

// TestConstantsAsInitializers: a graph whose weights are Constant nodes
// hashes as the graph with those weights as initializers once they are
// made initializers, and the graph is left as it was.
func TestConstantsAsInitializers(t *testing.T) {
	w := graph.FromFloat32([]float32{1, 2, 3, 4}, 2, 2)
	build := func(asNode, wOut bool) *graph.Graph {
		b := graph.NewBuilder("g")
		x := b.Input("x", graph.Float32, 2, 2)
		var c *graph.Value
		if asNode {
			c = b.Op("Constant", nil, graph.Attrs{"value": graph.TensorAttr(w)})
		} else {
			c = b.Const("w", w)
		}
		y := b.Op("Relu", []*graph.Value{b.Op("MatMul", []*graph.Value{x, c}, nil)}, nil)
		if wOut {
			b.Output(y, c)
		} else {
			b.Output(y)
		}
		g, err := b.Graph()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, wOut := range []bool{false, true} {
		nodes, inits := build(true, wOut), build(false, wOut)
		before := nodes.CanonicalHash()
		if before == inits.CanonicalHash() {
			t.Fatal("the Constant node and the initializer hash alike already: the test checks nothing")
		}
		got := constantsAsInitializers(nodes)
		if got.CanonicalHash() != inits.CanonicalHash() {
			t.Errorf("weight as an output %v: the Constant node made an initializer hashes unlike the initializer", wOut)
		}
		if len(got.Nodes) != 2 || len(nodes.Nodes) != 3 || nodes.CanonicalHash() != before {
			t.Errorf("weight as an output %v: %d nodes left of %d, the graph changed: %v", wOut, len(got.Nodes), len(nodes.Nodes), nodes.CanonicalHash() != before)
		}
		if constantsAsInitializers(inits) != inits {
			t.Error("a graph without Constant nodes is not returned as it is")
		}
	}
}

// TestChooseNotSlowerSkipsTheOriginalsGraph: a result that is the
// original's graph, its Constant nodes aside (the PaddleOCR-style
// detector's weights), is not timed: the original is written.
func TestChooseNotSlowerSkipsTheOriginalsGraph(t *testing.T) {
	s, err := PrepareDynamic("../testdata/corpus/paddle_det_like.onnx", map[string][]int{"x": {1, 3, 64, 64}}, RuleChoice{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Model.Graph.CanonicalHash() == s.Orig.Graph.CanonicalHash() {
		t.Fatal("folding changed nothing: the test checks nothing")
	}
	loads := 0
	be := pacedBackend{pace: func(*graph.Model) time.Duration { loads++; return time.Millisecond }}
	s.measuring.once.Do(func() { s.measuring.be = be })
	var log bytes.Buffer
	out, d, err := s.ChooseNotSlower(&log, "", s.Model, Measurement{}, 1e-4, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out != s.Orig || d.Choice != measure.ChooseOriginal || loads != 0 {
		t.Errorf("wrote the %s model after %d loads; want the original, nothing timed\n%s", d.Choice, loads, log.String())
	}
}
