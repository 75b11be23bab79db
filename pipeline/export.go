package pipeline

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/verify"
)

// ErrNotEquivalent is returned when the optimised model fails
// verification; nothing is written then.
var ErrNotEquivalent = errors.New("the optimised model does not compute the same function as the original; nothing was written")

// VerifySeeds is the number of random input sets an export is verified on.
const VerifySeeds = 3

// Export folds best, verifies the result against s.Orig (see Verify,
// printing one line a backend to w) and writes it atomically to path. It
// returns the written model.
func (s *Start) Export(w io.Writer, best *graph.Graph, path string, tol float64, seed uint64) (*graph.Model, error) {
	out, err := s.Finish(w, best, tol, seed)
	if err != nil {
		return nil, err
	}
	if err := onnx.WriteFileWith(path, s.Writable(out), onnx.EncodeOptions{LeanValueInfo: true}); err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return out, nil
}

// Finish rewrites the bodies of best's control-flow nodes
// (OptimizeBodies), folds best and verifies the result against s.Orig (see Verify,
// printing one line a backend to w; VerifyShapes; VerifyInputs), and
// returns it as a model.
func (s *Start) Finish(w io.Writer, best *graph.Graph, tol float64, seed uint64) (*graph.Model, error) {
	out, err := s.finishAtTuning(w, best, tol, seed)
	if err != nil {
		return nil, err
	}
	if err := s.verifyBeyondTuning(w, out, tol, seed); err != nil {
		return nil, err
	}
	return out, nil
}

// finishAtTuning is the first part of Finish: best with its bodies
// rewritten, folded and verified at the tuning shape on random inputs.
func (s *Start) finishAtTuning(w io.Writer, best *graph.Graph, tol float64, seed uint64) (*graph.Model, error) {
	return s.finishAtTuningOn(w, best, tol, seed, verifyRuntimes())
}

// finishAtTuningOn is finishAtTuning verifying on the runtimes named.
func (s *Start) finishAtTuningOn(w io.Writer, best *graph.Graph, tol float64, seed uint64, runtimes []string) (*graph.Model, error) {
	out, err := s.finishGraph(w, best)
	if err != nil {
		return nil, err
	}
	if err := s.verifyOn(w, s.Orig, out, tol, seed, runtimes); err != nil {
		return nil, err
	}
	return out, nil
}

// finishGraph returns best, its control-flow bodies rewritten
// (OptimizeBodies, reported to w) and folded, as a model of the
// original's: the model finishAtTuningOn verifies.
func (s *Start) finishGraph(w io.Writer, best *graph.Graph) (*graph.Model, error) {
	best, bst, err := OptimizeBodies(best, s.Engine)
	if err != nil {
		return nil, fmt.Errorf("rewriting control-flow bodies: %w", err)
	}
	reportBodies(w, bst)
	folded, _, err := rewrite.Fold(best, executor.Evaluate)
	if err != nil {
		return nil, fmt.Errorf("folding the optimised graph: %w", err)
	}
	out := *s.Orig
	out.Graph = folded
	return &out, nil
}

// verifyBeyondTuning is the rest of Finish: out verified at the other
// shapes of the interface (VerifyShapes) and on the user's input sets
// (VerifyInputs).
func (s *Start) verifyBeyondTuning(w io.Writer, out *graph.Model, tol float64, seed uint64) error {
	if err := s.VerifyShapes(w, out, tol, seed); err != nil {
		return err
	}
	return s.VerifyInputs(w, out, tol)
}

// FinishOrFolded is the tuning-shape part of Finish (finishAtTuning),
// except that a graph failing verification is dropped, never written, and
// the folded start graph is finished in its place (rejected reports
// that). Rewrites that reorder float32 arithmetic can, compounded over a
// recurrent network's many steps, drift past the tolerance; the user then
// gets a verified model and the reason. The other shapes and the user's
// inputs are checked for the model finally chosen (verifiedEverywhere).
func (s *Start) FinishOrFolded(w io.Writer, best *graph.Graph, tol float64, seed uint64) (out *graph.Model, rejected bool, err error) {
	out, err = s.finishAtTuning(w, best, tol, seed)
	if !errors.Is(err, ErrNotEquivalent) {
		return out, false, err
	}
	fmt.Fprintln(w, "the optimised graph is not written: it does not compute the same function within the tolerance (above); going on with the folded model")
	return s.foldedOrOriginal(w, tol, seed)
}

// foldedOrOriginal finishes the folded start graph (Finish: verified at
// every shape), or returns the original when that does not verify.
func (s *Start) foldedOrOriginal(w io.Writer, tol float64, seed uint64) (*graph.Model, bool, error) {
	out, err := s.Finish(w, s.Model.Graph, tol, seed)
	if errors.Is(err, ErrNotEquivalent) {
		fmt.Fprintln(w, "the folded model does not verify either (above); going on with the original")
		return s.Orig, true, nil
	}
	return out, true, err
}

// verifiedEverywhere checks the models chosen in turn, chain (the
// search's result verified at the tuning shape first, then each measured
// pass's result kept; see MeasuredPasses), beyond the tuning shape
// (verifyBeyondTuning), the last chosen first, and returns the first that
// verifies there, with the number of the last models dropped. The
// search's result failing too, the folded model is finished in its place
// (or the original, when that fails: rejected reports either). Each
// model dropped was chosen over the one before it by its timing, which
// therefore is the best of those left. The original and a model verified
// at every shape already (the folded model of FinishOrFolded) are
// returned as they are. A model after the first (a measured pass's
// result) is also verified at the tuning shape on the runtimes its trial
// left out (trialRuntimes).
func (s *Start) verifiedEverywhere(w io.Writer, chain []*graph.Model, everywhere *graph.Model, tol float64, seed uint64) (out *graph.Model, dropped int, rejected bool, err error) {
	for i := len(chain) - 1; i >= 0; i-- {
		m := chain[i]
		if m == s.Orig || m == everywhere {
			return m, len(chain) - 1 - i, false, nil
		}
		err := s.verifyBeyondTuning(w, m, tol, seed)
		if rest := runtimesLeft(trialRuntimes()); err == nil && i > 0 && len(rest) > 0 {
			// A measured pass's result, verified at the tuning shape on
			// ONNX Runtime only (trialRuntimes).
			err = s.verifyOn(w, s.Orig, m, tol, seed, rest)
		}
		if err == nil {
			return m, len(chain) - 1 - i, false, nil
		}
		if !errors.Is(err, ErrNotEquivalent) {
			return nil, 0, false, err
		}
		if i > 0 {
			fmt.Fprintln(w, "the model chosen does not verify at the other shapes (above); going on with the model chosen before it")
		} else {
			fmt.Fprintln(w, "the optimised graph is not written: it does not verify at the other shapes (above); going on with the folded model")
		}
	}
	out, rejected, err = s.foldedOrOriginal(w, tol, seed)
	return out, len(chain), rejected, err
}

// runtimesLeft returns the runtimes of verifyRuntimes not in done.
func runtimesLeft(done []string) []string {
	return slices.DeleteFunc(verifyRuntimes(), func(r string) bool { return slices.Contains(done, r) })
}

// verifyRuntimes names the runtimes a written model is verified on: the
// Go executor and, when installed, ONNX Runtime.
func verifyRuntimes() []string {
	if measure.DefaultBackendName() == "ort" {
		return []string{"go", "ort"}
	}
	return []string{"go"}
}

// trialRuntimes names the runtimes a measured pass's result is verified
// on at the tuning shape before it is timed: ONNX Runtime alone when it
// is installed (the model it is timed in; each pass's result was checked
// in float64 against the graph it rewrote), else the Go executor. The
// model finally chosen is verified on the Go executor too
// (verifiedEverywhere): on ViT-B/16 each trial's Go run took 9 of its 10 s
// of verification.
func trialRuntimes() []string {
	if rts := verifyRuntimes(); slices.Contains(rts, "ort") {
		return []string{"ort"}
	}
	return []string{"go"}
}

// Verify checks out against orig on the Go executor and, when installed,
// ONNX Runtime, on VerifySeeds input sets from seed on; it returns
// ErrNotEquivalent when any output differs by more than tol.
func Verify(w io.Writer, orig, out *graph.Model, tol float64, seed uint64) error {
	return verifyWith(w, orig, out, verifyRuntimes(), verify.Options{Seeds: VerifySeeds, FirstSeed: seed, Tolerance: tol})
}

// verify is Verify on the run's sessions (Start.sessionBackend).
func (s *Start) verify(w io.Writer, orig, out *graph.Model, tol float64, seed uint64) error {
	return s.verifyOn(w, orig, out, tol, seed, verifyRuntimes())
}

// verifyOn is verify on the runtimes named. The original's outputs are
// kept between calls (Start.referenceOutputs).
func (s *Start) verifyOn(w io.Writer, orig, out *graph.Model, tol float64, seed uint64, runtimes []string) error {
	return verifyWith(w, orig, out, runtimes, verify.Options{Seeds: VerifySeeds, FirstSeed: seed, Tolerance: tol, Backend: s.sessionBackend(),
		Reference: s.referenceOutputs()})
}

// referenceOutputs returns the run's store of the original's outputs
// (referenceBytes at most).
func (s *Start) referenceOutputs() *verify.Outputs {
	s.referenceOnce.Do(func() { s.reference = verify.NewOutputs(referenceBytes) })
	return s.reference
}

// referenceBytes bounds the original's outputs a run keeps between
// verifications: ViT-B/16's are 4 KB an input set, a detector's maps a
// few megabytes.
const referenceBytes = 256 << 20

// verifyWith is Verify with opts, on the runtimes named.
func verifyWith(w io.Writer, orig, out *graph.Model, runtimes []string, opts verify.Options) error {
	results, err := verify.Runtimes(runtimes, orig, out, opts)
	noteVerified(w, out, results)
	for _, r := range results {
		fmt.Fprintln(w, r)
		if r.Skipped == nil && !r.Result.OK {
			return ErrNotEquivalent
		}
	}
	return err
}

// Measurement says how end-to-end latency is measured.
type Measurement struct {
	Backend measure.BackendOptions
	Measure measure.MeasureOptions
	// CostCache, when set, is the JSON file the cost model keeps its
	// per-op times in across runs (measure.CostOptions.CacheFile): a run
	// times only the op configurations the file does not hold, and saves
	// the file when its search is done.
	CostCache string
}

// ReportMeasured measures orig and out end to end, interleaved, on the
// default backend (inputs drawn from seed) and prints the before/after
// line to w.
func ReportMeasured(w io.Writer, orig, out *graph.Model, m Measurement, seed uint64) error {
	name := measure.DefaultBackendName()
	be, sa, in, err := openDefault(orig, m.Backend, seed)
	if err != nil {
		return err
	}
	defer sa.Close()
	sb, err := be.Load(out)
	if err != nil {
		return err
	}
	defer sb.Close()
	c, err := measure.Compare(sa, sb, in, in, m.Measure)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s latency (measured, interleaved): %v -> %v (speedup %.3fx; after/before ratio %.3f, 99%% CI %.3f-%.3f)\n", name,
		c.A.Median.Round(time.Microsecond), c.B.Median.Round(time.Microsecond), 1/c.Ratio, c.Ratio, c.RatioLo, c.RatioHi)
	return nil
}
