package pipeline

import (
	"fmt"
	"io"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/verify"
)

// VerifyInputs checks the model that will be written against the
// original on the user's input sets (s.Inputs), on the runtimes Verify
// uses, printing a line a runtime and the worst output of each set to w.
// Sets at the tuning shapes run on the bound models; sets of other
// shapes, on both models bound at their shapes when s keeps the model's
// interface (a specialised start takes only its binding's shapes). It
// returns ErrNotEquivalent when the written model differs on some set or
// does not take or run at a set's shapes where the original does.
func (s *Start) VerifyInputs(w io.Writer, out *graph.Model, tol float64) error {
	if len(s.Inputs) == 0 {
		return nil
	}
	ref := s.Orig.Graph
	if s.Declared != nil {
		ref = s.Declared.Graph
	}
	groups, err := inputs.ByShape(ref, s.Inputs)
	if err != nil {
		return fmt.Errorf("your input sets: %w", err)
	}
	var data []byte
	for _, gr := range groups {
		orig, opt, where := s.Orig, out, "on your input sets"
		if !gr.Fits(s.Orig.Graph) {
			if s.Declared == nil {
				return fmt.Errorf("your input sets have the shapes %s, which the specialised model (--shape) does not take", gr.Binding())
			}
			where = "on your input sets at " + gr.Binding()
			if orig, err = s.declaredAt(gr.Shapes); err != nil {
				return fmt.Errorf("your input sets at %s: the original does not take these shapes: %w", gr.Binding(), err)
			}
			if data == nil {
				if data, err = onnx.Encode(s.Writable(out)); err != nil {
					return fmt.Errorf("encoding the optimised model: %w", err)
				}
			}
			if opt, err = writtenAt(data, gr.Shapes); err != nil {
				fmt.Fprintf(w, "%s: the optimised model does not take these shapes: %v\n", where, err)
				return ErrNotEquivalent
			}
		}
		if err := verifyUserSets(w, where, orig, opt, gr.Sets, tol); err != nil {
			return err
		}
	}
	return nil
}

// verifyUserSets verifies opt against orig on sets, printing each
// runtime's line, prefixed by where, and each set's worst output.
func verifyUserSets(w io.Writer, where string, orig, opt *graph.Model, sets []inputs.Set, tol float64) error {
	results, err := verify.Runtimes(verifyRuntimes(), orig, opt, verify.Options{Sets: sets, Tolerance: tol})
	differ := false
	for _, r := range results {
		fmt.Fprintf(w, "%s: %v\n", where, r)
		if r.Skipped != nil {
			continue
		}
		for _, set := range r.Result.Sets {
			fmt.Fprintf(w, "  %v\n", set)
		}
		differ = differ || !r.Result.OK
	}
	if differ {
		return ErrNotEquivalent
	}
	if err != nil {
		if _, origErr := verify.Runtimes(verifyRuntimes(), orig, orig, verify.Options{Sets: sets, Tolerance: tol}); origErr == nil {
			// The original runs on the sets: the optimised model fails
			// where it does not.
			fmt.Fprintf(w, "%s: the optimised model does not run: %v\n", where, err)
			return ErrNotEquivalent
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}
