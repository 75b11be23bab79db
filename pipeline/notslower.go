package pipeline

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// NotSlowerResolution is the precision to which the never-slower test
// resolves the speedup of a model it shows faster: that is the figure
// optimize prints, and a test that stops as soon as the decision is clear
// left it ±5-12% wide on sub-millisecond models.
const NotSlowerResolution = 0.02

// NotSlowerMinGain is the least gain never-slower times a model for
// (measure.MeasureOptions.MinGain): once the interval shows the written
// model faster by less than 2% at most, the original is written. The
// PaddleOCR-sized MobileNetV3, whose rewrites gain nothing (0.997-0.999x,
// 99% CI 0.988-1.010), ran to the 10 s cap without the stop, and with a
// 1% one (its interval's upper end hovering at 1.01).
const NotSlowerMinGain = 0.02

// ChooseNotSlower times the optimised model against the original (and,
// when needed, the folded one) on the default backend, interleaved, prints
// the measurements, the decision and the speedup of the model to write to
// w, and returns that model: one that the 99% interval of the ratio of
// median latencies shows faster than the original, else s.Orig itself
// (see measure.DecideNotSlower; WriteModel then copies the original file).
// src is the file the original was read from ("": none); the original is
// timed as that file when the backend can load it. The decision is
// returned beside the model.
//
// optimised need only be verified at the tuning shape: a model is checked
// at the other shapes and on the user's inputs only once the timing has
// chosen it, by everywhere (nil: optimised is verified there already),
// which returns the model to go on with: optimised itself, or the model
// it falls back to when optimised fails there (see verifiedEverywhere).
// That model is then timed in its place. When the original is written
// nothing is checked beyond the tuning shape: ViT-B/16's checks at its
// three other batches took 17.7 s of a run that wrote the original
// (docs/perf.md). A chosen folded model is verified at every shape itself;
// should it fail, the original is written. The shape sweep times the
// model chosen once it is verified everywhere. A result that is the
// original's graph (Constant nodes aside, which ONNX Runtime loads as
// initializers) is not timed at all: the original is written. Whenever
// the original is written, the user's input sets still check the model
// left out (inputsAnyway).
func (s *Start) ChooseNotSlower(w io.Writer, src string, optimised *graph.Model, m Measurement, tol float64, seed uint64, everywhere func(*graph.Model) (*graph.Model, error)) (*graph.Model, measure.Decision, error) {
	name := measure.DefaultBackendName()
	be, in, err := s.bench(m, seed)
	if err != nil {
		return nil, measure.Decision{}, err
	}
	orig := measure.ModelFile{Model: s.Orig}
	if src != "" {
		if orig.File, err = SelfContained(src); err != nil {
			return nil, measure.Decision{}, err
		}
	}
	opts := m.Measure
	if opts.Resolution == 0 {
		opts.Resolution = NotSlowerResolution
	}
	opts.Futility = Futility
	// A model faster by less than NotSlowerMinGain is not worth a
	// different file: the test stops once its interval says so.
	opts.MinGain = max(NotSlowerMinGain, opts.Precision)
	folded := s.Model
	origHash := s.Orig.Graph.CanonicalHash()
	if h := s.Model.Graph.CanonicalHash(); h == origHash || h == constantsAsInitializers(s.Orig.Graph).CanonicalHash() {
		// Folding changed nothing that ONNX Runtime does not do itself
		// (it loads Constant nodes as initializers): the folded model is
		// the original, and timing the original against itself could
		// only pick a copy of it by chance.
		folded, origHash = nil, h
	}
	for {
		if optimised == s.Orig {
			// Nothing but the original verified at every shape.
			d := measure.Decision{Choice: measure.ChooseOriginal, Reason: "no other model verifies at every shape"}
			printWritten(w, d)
			return s.Orig, d, nil
		}
		if folded == nil && !hasBodies(optimised.Graph) && optimised.Graph.CanonicalHash() == origHash {
			// The original's graph (the result is folded, and folding
			// changes nothing): timing it against itself could only pick
			// a copy by chance. The corpus PaddleOCR-style detector,
			// whose rollout kept no rewrite, timed its copy for 8.6 s in
			// one run. (The digest does not see rewritten control-flow
			// bodies: a graph with bodies is timed.)
			d := measure.Decision{Choice: measure.ChooseOriginal, Reason: "the optimised graph is the original's: not timed"}
			printWritten(w, d)
			return s.Orig, d, s.inputsAnyway(w, optimised, tol)
		}
		same := s.Model.Graph.CanonicalHash() == optimised.Graph.CanonicalHash()
		// Timed as they would be written (s.Writable): with the original's
		// symbolic input dimensions, ONNX Runtime plans another model than
		// with the tuning shape bound (the original's file ran the corpus
		// encoder about 10% faster than its bound copy), and the figure
		// printed is that of the file the user gets.
		timedOpt, timedFolded := s.Writable(optimised), folded
		if folded != nil {
			timedFolded = s.Writable(folded)
		}
		d, err := measure.DecideNotSlower(be, orig, timedFolded, timedOpt, same, in, opts)
		if err != nil {
			return nil, measure.Decision{}, err
		}
		fmt.Fprintf(w, "%s latency (measured, interleaved): %s\n", name, d.Optimised.Summary())
		if f := d.Folded; f != nil {
			fmt.Fprintf(w, "folded only (measured, interleaved): %s\n", f.Summary())
		}
		chosen, timed := optimised, timedOpt
		switch {
		case d.Choice == measure.ChooseOriginal:
			chosen = s.Orig
		case d.Choice == measure.ChooseFolded && !same:
			chosen, timed = s.Model, timedFolded
			if err := s.foldedEverywhere(w, tol, seed); errors.Is(err, ErrNotEquivalent) {
				fmt.Fprintln(w, "the folded model does not verify at every shape (above); going on with the original")
				d.Choice, d.Reason = measure.ChooseOriginal, "the folded model, shown faster, does not verify at every shape"
				chosen = s.Orig
			} else if err != nil {
				return nil, measure.Decision{}, err
			}
		case everywhere != nil:
			v, err := everywhere(optimised)
			if err != nil {
				return nil, measure.Decision{}, err
			}
			if v != optimised {
				// optimised failed at the other shapes: the model it fell
				// back to is timed in its place.
				optimised = v
				continue
			}
		}
		printWritten(w, d)
		if chosen == s.Orig {
			return s.Orig, d, s.inputsAnyway(w, optimised, tol)
		}
		slower, err := s.sweepDecision(w, be, orig, timed, d.Written(), m, seed)
		if err != nil {
			return nil, measure.Decision{}, err
		}
		if slower != "" {
			d.Choice, d.Reason = measure.ChooseOriginal, "the model chosen at the tuning shape is slower at "+slower
			return s.Orig, d, nil
		}
		return chosen, d, nil
	}
}

// printWritten prints the decision d: the model written and why, and its
// speedup with the medians it is made of (1x for the original).
func printWritten(w io.Writer, d measure.Decision) {
	fmt.Fprintf(w, "writing the %s model: %s\n", d.Choice, d.Reason)
	if c := d.Written(); c != nil {
		lo, hi := c.SpeedupCI()
		fmt.Fprintf(w, "speedup of the written model: %.3fx (99%% CI %.3f-%.3f; medians %v -> %v)\n",
			c.Speedup(), lo, hi, c.A.Median.Round(time.Microsecond), c.B.Median.Round(time.Microsecond))
	} else {
		fmt.Fprintln(w, "speedup of the written model: 1x (the original)")
	}
}

// inputsAnyway checks optimised on the user's input sets (--inputs) when
// the original is written instead, so that the user still sees what their
// data says of it, and a set the model does not take is still an error;
// a difference there is reported, and changes nothing: the original is
// what is written.
func (s *Start) inputsAnyway(w io.Writer, optimised *graph.Model, tol float64) error {
	if len(s.Inputs) == 0 || optimised == s.Orig {
		return nil
	}
	fmt.Fprintln(w, "your input sets: the optimised model checked on them, though the original is written")
	err := s.VerifyInputs(w, optimised, tol)
	if errors.Is(err, ErrNotEquivalent) {
		fmt.Fprintln(w, "your input sets: the optimised model does not compute what the original does on them (above)")
		return nil
	}
	return err
}

// foldedEverywhere verifies the folded model at the tuning shape, at the
// other shapes and on the user's inputs (ErrNotEquivalent when it fails
// one).
func (s *Start) foldedEverywhere(w io.Writer, tol float64, seed uint64) error {
	if err := s.verify(w, s.Orig, s.Model, tol, seed); err != nil {
		return err
	}
	return s.verifyBeyondTuning(w, s.Model, tol, seed)
}

// constantsAsInitializers returns g with each Constant node's output an
// initializer holding its value and the node gone: the graph ONNX Runtime
// runs either way (it loads Constant nodes as initializers), for telling
// by CanonicalHash whether folding changed anything it does not. Nodes
// are copied where an input changes; g is not modified.
func constantsAsInitializers(g *graph.Graph) *graph.Graph {
	repl := map[*graph.Value]*graph.Value{}
	out := &graph.Graph{Name: g.Name, Inputs: g.Inputs, Initializers: slices.Clone(g.Initializers)}
	for _, n := range g.Nodes {
		if len(n.Inputs) == 0 && len(n.Outputs) == 1 && n.Outputs[0] != nil {
			if t, err := graph.ConstantValue(n); err == nil {
				v := n.Outputs[0]
				c := &graph.Value{Name: v.Name, DType: t.DType, Const: t}
				c.SetStatic(t.DType, t.Shape)
				repl[v] = c
				out.Initializers = append(out.Initializers, c)
				continue
			}
		}
		out.Nodes = append(out.Nodes, n)
	}
	if len(repl) == 0 {
		return g
	}
	// sub returns vs with the replacements made: vs itself when none is.
	sub := func(vs []*graph.Value) ([]*graph.Value, bool) {
		var cp []*graph.Value
		for i, v := range vs {
			if c, ok := repl[v]; ok {
				if cp == nil {
					cp = slices.Clone(vs)
				}
				cp[i] = c
			}
		}
		if cp == nil {
			return vs, false
		}
		return cp, true
	}
	for i, n := range out.Nodes {
		if ins, changed := sub(n.Inputs); changed {
			cn := *n
			cn.Inputs = ins
			out.Nodes[i] = &cn
		}
	}
	out.Outputs, _ = sub(g.Outputs)
	return out
}
