package verify_test

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/measure/goexec"
	"github.com/xrl-dev/xrl/verify"
)

// countingBackend counts the runs of the sessions it loads, per model.
type countingBackend struct {
	measure.Backend
	runs map[*graph.Model]int
}

func (b *countingBackend) Load(m *graph.Model) (measure.Session, error) {
	s, err := b.Backend.Load(m)
	if err != nil {
		return nil, err
	}
	return &countingSession{Session: s, count: func() { b.runs[m]++ }}, nil
}

type countingSession struct {
	measure.Session
	count func()
}

func (s *countingSession) Run(in map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	s.count()
	return s.Session.Run(in)
}

// TestReferenceOutputs: with a store of the first model's outputs, a
// second verification against the same original runs the original on
// none of its input sets, and still finds a perturbed model out; without
// one, every verification runs it again. Another seed is another input
// set, run once.
func TestReferenceOutputs(t *testing.T) {
	w := randomWeights(8)
	orig := mlpModel(t, w)
	bad := w.Clone()
	bad.Float32s()[3] += 1e-2
	for _, keep := range []bool{true, false} {
		be := &countingBackend{Backend: &goexec.Backend{}, runs: map[*graph.Model]int{}}
		opts := verify.Options{Seeds: 3}
		if keep {
			opts.Reference = verify.NewOutputs(1 << 20)
		}
		res, err := verify.Models(be, orig, mlpModel(t, w.Clone()), opts)
		if err != nil || !res.OK {
			t.Fatalf("identical models must verify: %v %v", res, err)
		}
		res, err = verify.Models(be, orig, mlpModel(t, bad), opts)
		if err != nil || res.OK {
			t.Fatalf("keep %v: a perturbed weight went unnoticed: %v %v", keep, res, err)
		}
		want := 3
		if !keep {
			want = 6
		}
		if be.runs[orig] != want {
			t.Errorf("keep %v: the original ran %d times for two verifications of 3 input sets, want %d", keep, be.runs[orig], want)
		}
		opts.FirstSeed = 2 // sets of seeds 2, 3 and 4: one new
		if _, err := verify.Models(be, orig, mlpModel(t, w.Clone()), opts); err != nil {
			t.Fatal(err)
		}
		if keep && be.runs[orig] != 4 {
			t.Errorf("seeds 2-4 after 1-3: the original ran %d times in all, want 4", be.runs[orig])
		}
	}
}

// TestReferenceOutputsLimit: outputs beyond the store's byte limit are
// not kept, and the original runs again.
func TestReferenceOutputsLimit(t *testing.T) {
	w := graph.NewTensor(graph.Float32, 32, 16)
	orig := mlpModel(t, w)
	be := &countingBackend{Backend: &goexec.Backend{}, runs: map[*graph.Model]int{}}
	opts := verify.Options{Seeds: 2, Reference: verify.NewOutputs(4 * 16 * 4)} // one set's output
	for range 2 {
		if _, err := verify.Models(be, orig, mlpModel(t, w.Clone()), opts); err != nil {
			t.Fatal(err)
		}
	}
	if be.runs[orig] != 3 {
		t.Errorf("room for one set's outputs: the original ran %d times for two verifications of 2 sets, want 3", be.runs[orig])
	}
}
