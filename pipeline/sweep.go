package pipeline

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// DefaultSweep returns the shapes never-slower decides on for a model with
// symbolic dimensions: the tuning shape, each batch symbol (an input's
// first dimension) times 8, and each other symbol divided by 4 (at least
// 1), the others at their tuning sizes.
func (it *Interface) DefaultSweep() []ShapeBinding {
	out := []ShapeBinding{it.tuning()}
	for _, name := range it.symbolNames() {
		b := it.tuning()
		if it.Leading[name] {
			b[name] *= 8
		} else {
			b[name] = max(1, b[name]/4)
		}
		out = appendBinding(out, b)
	}
	return out
}

// SweepRunBudget bounds the run time of the default sweep's batch shape:
// the batch is multiplied by 8, or by 4 or 2 when the original's run at
// the tuning shape, times that factor, would pass the budget (2 at
// least). A swept shape is timed in blocks like any comparison, and a
// run many times the tuning one leaves few of them within --max-time:
// the corpus encoder at 15-19 ms a run (an EPYC VM, docs/perf.md, "A
// cheaper sweep") ran batch 8 at 194 ms, 13x its tuning run, and the
// sweep took 9-13 s to end undecided (99% CI of the speedup 0.843-1.717);
// batch 4 (73 ms) took 5.2 s and batch 2 (33 ms) 3.3 s, both shown
// faster. At 50 ms a model of 6 ms or less still sweeps batch 8, one of
// 12.5 ms or less batch 4, the rest batch 2, a batch above the tuning
// one. Verification still runs every model at batch 8 (VerifyBindings);
// --sweep names any other shape to time.
const SweepRunBudget = 50 * time.Millisecond

// sweepFactors are the default sweep's batch multipliers, largest first.
var sweepFactors = []int64{8, 4, 2}

// boundSweep returns sweep (a DefaultSweep) with each batch symbol's
// multiplier cut to the largest of sweepFactors whose estimated run (the
// original's latency at the tuning shape times it) is within
// SweepRunBudget, and a note per shape changed. latency <= 0 (not known)
// keeps sweep.
func (it *Interface) boundSweep(sweep []ShapeBinding, latency time.Duration) ([]ShapeBinding, []string) {
	if latency <= 0 || len(sweep) <= 1 {
		return sweep, nil
	}
	f := sweepFactors[len(sweepFactors)-1]
	for _, c := range sweepFactors {
		if time.Duration(c)*latency <= SweepRunBudget {
			f = c
			break
		}
	}
	tune := it.tuning()
	out := []ShapeBinding{sweep[0]}
	var notes []string
	for _, b := range sweep[1:] {
		nb := ShapeBinding{}
		for k, v := range b {
			nb[k] = v
			if it.Leading[k] && v == tune[k]*sweepFactors[0] && f != sweepFactors[0] {
				nb[k] = tune[k] * f
			}
		}
		if nb.String() != b.String() {
			notes = append(notes, fmt.Sprintf("%s instead of %s", nb, b))
		}
		out = appendBinding(out, nb)
	}
	return out, notes
}

// tuning returns the tuning binding.
func (it *Interface) tuning() ShapeBinding {
	b := ShapeBinding{}
	for k, v := range it.Symbols {
		b[k] = v
	}
	return b
}

// symbolNames returns the symbols, sorted.
func (it *Interface) symbolNames() []string {
	names := make([]string, 0, len(it.Symbols))
	for k := range it.Symbols {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// appendBinding appends b unless out holds it already.
func appendBinding(out []ShapeBinding, b ShapeBinding) []ShapeBinding {
	for _, o := range out {
		if o.String() == b.String() {
			return out
		}
	}
	return append(out, b)
}

// ParseSweep reads --sweep values: "NAME=DIMS" binds the symbols of input
// NAME's declared dimensions to DIMS ("ids=8x128" gives batch 8, seq 128);
// a value without "NAME=" is another shape of the last input named, so
// "ids=1x32,1x128,8x128" is three shapes. Symbols the named input does not
// have keep their tuning sizes. The tuning shape always comes first.
func (it *Interface) ParseSweep(specs []string) ([]ShapeBinding, error) {
	out := []ShapeBinding{it.tuning()}
	name := ""
	for _, spec := range specs {
		dims := spec
		if k, v, ok := strings.Cut(spec, "="); ok {
			name, dims = strings.TrimSpace(k), v
		}
		if name == "" {
			return nil, fmt.Errorf("--sweep %q: want NAME=DIMS, e.g. ids=8x128", spec)
		}
		decl, ok := it.Inputs[name]
		if !ok {
			return nil, fmt.Errorf("--sweep %q: %q is not an input with a declared shape", spec, name)
		}
		shape, err := graph.ParseShape(dims)
		if err != nil {
			return nil, fmt.Errorf("--sweep %q: %w", spec, err)
		}
		if len(shape) != len(decl) {
			return nil, fmt.Errorf("--sweep %q: input %q has rank %d (%v)", spec, name, len(decl), decl)
		}
		b := it.tuning()
		for i, d := range decl {
			size := int64(shape[i])
			if d.Known() {
				if d.Value != size {
					return nil, fmt.Errorf("--sweep %q: dimension %d of %q is fixed at %d", spec, i, name, d.Value)
				}
				continue
			}
			sym := d.Param
			if sym == "" {
				sym = fmt.Sprintf("%s_dim%d", name, i)
			}
			if size < 1 {
				return nil, fmt.Errorf("--sweep %q: dimension %d (%s) must be at least 1", spec, i, sym)
			}
			b[sym] = size
		}
		out = appendBinding(out, b)
	}
	return out, nil
}

// SweepRow is the never-slower measurement at one swept shape: the
// original (A) against the model to write (B).
type SweepRow struct {
	Binding    ShapeBinding
	Comparison measure.Comparison
}

// sweepNotSlower times the model chosen at the tuning shape against the
// original at every other shape of sweep, interleaved, with the same
// sessions for all shapes (one pair, or measure.SessionPairs' several for
// a model under a millisecond at the sweep's smallest shape), and reports
// whether it is not slower at any of them (no interval wholly above 1).
// Shapes the original does not take are skipped with a note. It returns
// the rows measured.
func (s *Start) sweepNotSlower(w io.Writer, be measure.Backend, orig measure.ModelFile, chosen *graph.Model, sweep []ShapeBinding, m Measurement, seed uint64) ([]SweepRow, bool, error) {
	if len(sweep) <= 1 {
		return nil, true, nil
	}
	type shape struct {
		b  ShapeBinding
		in map[string]*graph.Tensor
	}
	var shapes []shape
	smallest, least := -1, 0
	for _, b := range sweep[1:] {
		decl := s.Declared.Clone()
		if err := decl.Graph.BindShapes(s.Interface.inputShapes(b)); err != nil {
			fmt.Fprintf(w, "sweep at %s: skipped, the original does not take this shape (%v)\n", b, err)
			continue
		}
		in, err := measure.RandomInputs(decl.Graph, seed)
		if err != nil {
			return nil, false, fmt.Errorf("sweep at %s: %w", b, err)
		}
		n := 0
		for _, t := range in {
			n += t.Len()
		}
		if smallest < 0 || n < least {
			smallest, least = len(shapes), n
		}
		shapes = append(shapes, shape{b, in})
	}
	if len(shapes) == 0 {
		return nil, true, nil
	}
	as, bs, err := measure.SessionPairs(be, orig, measure.ModelFile{Model: chosen}, shapes[smallest].in)
	defer measure.CloseAll(as)
	defer measure.CloseAll(bs)
	switch {
	case err != nil && len(as) == 0:
		return nil, false, fmt.Errorf("shape sweep: %w", err)
	case err != nil:
		// Loaded, but the smallest shape did not run (it is skipped
		// below) or a later pair did not load: the pairs loaded serve.
		fmt.Fprintf(w, "sweep: timing over %d session pair(s): %v\n", len(as), err)
	}
	var rows []SweepRow
	ok := true
	// The smallest shape ran in SessionPairs' look at the pace already.
	ranSmallest := err == nil
	for i, sh := range shapes {
		if !ranSmallest || i != smallest {
			if _, err := as[0].Run(sh.in); err != nil {
				fmt.Fprintf(w, "sweep at %s: skipped, the original does not run at this shape (%v)\n", sh.b, err)
				continue
			}
		}
		c, err := measure.ComparePairs(as, bs, sh.in, sh.in, sweepOptions(m.Measure))
		if err != nil {
			return rows, false, fmt.Errorf("sweep at %s: %w", sh.b, err)
		}
		rows = append(rows, SweepRow{Binding: sh.b, Comparison: c})
		if c.Verdict == measure.Slower {
			ok = false
		}
	}
	return rows, ok, nil
}

// sweepOptions returns the measurement options of a swept shape: o with
// no least number of runs (the look the sequential test starts at is
// then set by its blocks and o.MinTime), so that a slow shape, such as
// ViT-B/16 at batch 8 (690 ms a run), is looked at after 8 short blocks
// instead of o.Runs runs, and that stops once the interval shows the
// model not slower by more than o.Precision (StopNotSlower). Only a swept
// shape shown slower changes the decision, and every look keeps the
// test's 99% level.
func sweepOptions(o measure.MeasureOptions) measure.MeasureOptions {
	o.Runs, o.StopNotSlower = 1, true
	return o
}

// writeSweepTable prints one line a shape: latency before and after (the
// medians), the speedup with its 99% interval, and the verdict.
func writeSweepTable(w io.Writer, tuning *measure.Comparison, tuningAt ShapeBinding, rows []SweepRow) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "shape\tbefore\tafter\tspeedup\t99% CI\tverdict")
	line := func(b ShapeBinding, c measure.Comparison, note string) {
		lo, hi := c.SpeedupCI()
		fmt.Fprintf(tw, "%s%s\t%v\t%v\t%.3fx\t%.3f-%.3f\t%v\n", b, note, c.A.Median.Round(time.Microsecond), c.B.Median.Round(time.Microsecond), c.Speedup(), lo, hi, c.Verdict)
	}
	if tuning != nil {
		line(tuningAt, *tuning, " (tuning)")
	}
	for _, r := range rows {
		line(r.Binding, r.Comparison, "")
	}
	tw.Flush()
}

// sweepDecision runs the shape sweep for the model chosen at the tuning
// shape (tuning: its comparison there) and prints the per-shape table; it
// returns the shapes the model is slower at ("" when none), after saying
// that the original is written instead. Models without symbolic
// dimensions, runs without a sweep, and backends that run a model at its
// bound shape only (the Go executor) have nothing to sweep.
func (s *Start) sweepDecision(w io.Writer, be measure.Backend, orig measure.ModelFile, chosen *graph.Model, tuning *measure.Comparison, m Measurement, seed uint64) (string, error) {
	if !s.Interface.Dynamic() || len(s.Sweep) <= 1 {
		return "", nil
	}
	if measure.DefaultBackendName() != "ort" {
		fmt.Fprintln(w, "shape sweep: skipped (the Go executor runs a model at its bound shape only)")
		return "", nil
	}
	t0 := time.Now()
	if s.defaultSweep && tuning != nil {
		var notes []string
		s.Sweep, notes = s.Interface.boundSweep(s.Sweep, tuning.A.Median)
		for _, n := range notes {
			fmt.Fprintf(w, "sweep: %s: the original takes %v a run at the tuning shape, and a batch 8 times larger would take about %v (see SweepRunBudget; --sweep asks for any shape)\n",
				n, tuning.A.Median.Round(time.Microsecond), (8 * tuning.A.Median).Round(time.Millisecond))
		}
	}
	rows, ok, err := s.sweepNotSlower(w, be, orig, chosen, s.Sweep, m, seed)
	if err != nil {
		return "", err
	}
	s.swept, s.sweepTime = rows, time.Since(t0)
	fmt.Fprintln(w, "latency at each swept shape (original -> model to write, interleaved):")
	writeSweepTable(w, tuning, s.Sweep[0], rows)
	if ok {
		return "", nil
	}
	var slow []string
	for _, r := range rows {
		if r.Comparison.Verdict == measure.Slower {
			slow = append(slow, r.Binding.String())
		}
	}
	fmt.Fprintf(w, "writing the original model instead: the model chosen at the tuning shape is slower at %s\n", strings.Join(slow, "; "))
	return strings.Join(slow, "; "), nil
}
