package pipeline

import (
	"errors"
	"fmt"
	"io"
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
// model chosen once it is verified everywhere.
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
	if s.Model.Graph.CanonicalHash() == s.Orig.Graph.CanonicalHash() {
		// Folding changed nothing: the folded model is the original, and
		// timing the original against itself could only pick a copy of
		// it by chance.
		folded = nil
	}
	for {
		if optimised == s.Orig {
			// Nothing but the original verified at every shape.
			d := measure.Decision{Choice: measure.ChooseOriginal, Reason: "no other model verifies at every shape"}
			fmt.Fprintf(w, "writing the original model: %s\n", d.Reason)
			fmt.Fprintln(w, "speedup of the written model: 1x (the original)")
			return s.Orig, d, nil
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
		fmt.Fprintf(w, "writing the %s model: %s\n", d.Choice, d.Reason)
		if c := d.Written(); c != nil {
			lo, hi := c.SpeedupCI()
			fmt.Fprintf(w, "speedup of the written model: %.3fx (99%% CI %.3f-%.3f; medians %v -> %v)\n",
				c.Speedup(), lo, hi, c.A.Median.Round(time.Microsecond), c.B.Median.Round(time.Microsecond))
		} else {
			fmt.Fprintln(w, "speedup of the written model: 1x (the original)")
		}
		if chosen == s.Orig {
			return s.Orig, d, nil
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

// foldedEverywhere verifies the folded model at the tuning shape, at the
// other shapes and on the user's inputs (ErrNotEquivalent when it fails
// one).
func (s *Start) foldedEverywhere(w io.Writer, tol float64, seed uint64) error {
	if err := s.verify(w, s.Orig, s.Model, tol, seed); err != nil {
		return err
	}
	return s.verifyBeyondTuning(w, s.Model, tol, seed)
}
