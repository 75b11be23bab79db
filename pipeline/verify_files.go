package pipeline

import (
	"fmt"
	"io"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
	"github.com/xrl-dev/xrl/verify"
)

// InputsError reports input sets of the user's that cannot be read or do
// not match the model's inputs.
type InputsError struct{ Err error }

func (e *InputsError) Error() string { return "input sets: " + e.Err.Error() }

func (e *InputsError) Unwrap() error { return e.Err }

// ReadInputGroups reads the user's input sets at path (inputs.Read) and
// groups them by shape, matched to the inputs the model at modelPath
// declares. An empty path reads nothing. Errors in the sets are
// *InputsError.
func ReadInputGroups(modelPath, path string) ([]inputs.Group, error) {
	if path == "" {
		return nil, nil
	}
	sets, err := inputs.Read(path)
	if err != nil {
		return nil, &InputsError{err}
	}
	m, err := ReadModel(modelPath)
	if err != nil {
		return nil, err
	}
	groups, err := inputs.ByShape(m.Graph, sets)
	if err != nil {
		return nil, &InputsError{err}
	}
	return groups, nil
}

// AddInputs reads the user's input sets at path (ReadInputGroups) into
// cfg.Inputs; when cfg.Shapes binds nothing, the model is tuned at the
// shapes of the first set.
func (cfg *Config) AddInputs(path string) error {
	groups, err := ReadInputGroups(cfg.Model, path)
	if err != nil {
		return err
	}
	if len(groups) > 0 && len(cfg.Shapes) == 0 {
		cfg.Shapes = groups[0].Shapes
	}
	for _, gr := range groups {
		cfg.Inputs = append(cfg.Inputs, gr.Sets...)
	}
	return nil
}

// LoadPair loads the models at files a and b with the same input shapes
// bound (LoadBound).
func LoadPair(a, b string, bind map[string][]int) (*graph.Model, *graph.Model, error) {
	ma, err := LoadBound(a, bind)
	if err != nil {
		return nil, nil, err
	}
	mb, err := LoadBound(b, bind)
	if err != nil {
		return nil, nil, err
	}
	return ma, mb, nil
}

// VerifyFiles checks that the models at files a and b compute the same
// function on runtimes (verify.Runtimes with opts), printing each
// runtime's result with its details to w, and reports whether some runtime
// found a difference. The models are bound at bind, or at the shapes of
// the first of the user's input groups when bind is empty; the groups at
// those shapes join the random sets, and each group of other shapes is
// checked on its own at its shapes.
func VerifyFiles(w io.Writer, a, b string, bind map[string][]int, runtimes []string, opts verify.Options, groups []inputs.Group) (bool, error) {
	if len(bind) == 0 && len(groups) > 0 {
		bind = groups[0].Shapes
	}
	ma, mb, err := LoadPair(a, b, bind)
	if err != nil {
		return false, err
	}
	var others []inputs.Group
	for _, gr := range groups {
		if gr.Fits(ma.Graph) {
			opts.Sets = append(opts.Sets, gr.Sets...)
		} else {
			others = append(others, gr)
		}
	}
	results, err := verify.Runtimes(runtimes, ma, mb, opts)
	failed := writeVerified(w, results)
	if err != nil {
		return failed, err
	}
	for _, gr := range others {
		fmt.Fprintf(w, "at the shapes of your input sets %s:\n", gr.Binding())
		ga, gb, err := LoadPair(a, b, gr.Shapes)
		if err != nil {
			return failed, err
		}
		results, err := verify.Runtimes(runtimes, ga, gb, verify.Options{Tolerance: opts.Tolerance, ATol: opts.ATol, Sets: gr.Sets})
		failed = writeVerified(w, results) || failed
		if err != nil {
			return failed, err
		}
	}
	return failed, nil
}

// writeVerified prints each runtime's result with its details to w and
// reports whether some runtime found a difference.
func writeVerified(w io.Writer, results []verify.RuntimeResult) bool {
	failed := false
	for _, r := range results {
		fmt.Fprintln(w, r)
		if r.Skipped == nil {
			fmt.Fprint(w, r.Result.Details())
			failed = failed || !r.Result.OK
		}
	}
	return failed
}
