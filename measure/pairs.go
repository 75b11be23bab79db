package measure

import (
	"fmt"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// ModelFile is a model as read and bound for measurement (Model) with
// the ONNX bytes it was read from (File; nil when there are none, or when
// they name external data files). A backend that can load serialised ONNX
// as given (a BytesLoader: ONNX Runtime) times File itself, so that a
// figure is that of the file a user has: a bound copy can run at another
// speed (ONNX Runtime ran the corpus encoder's file, its sequence axis
// symbolic, about 10% faster than the copy with its shapes bound).
type ModelFile struct {
	Model *graph.Model
	File  []byte
}

// BytesLoader is implemented by backends that can load a model from its
// serialised ONNX as it is, m being that model as read and bound (it names
// the session's inputs and outputs).
type BytesLoader interface {
	LoadONNX(data []byte, m *graph.Model) (Session, error)
}

// Load loads f in be: its file when be is a BytesLoader and there is
// one, else its model. A file the backend refuses as given (an old-opset
// model with a kernel ONNX Runtime no longer has, such as AveragePool-1,
// which xrl's reading converts to its current form) is timed as the model
// read from it.
func (f ModelFile) Load(be Backend) (Session, error) {
	s, _, err := f.load(be)
	return s, err
}

// load is Load, reporting whether the session runs the file as given.
func (f ModelFile) load(be Backend) (s Session, fromFile bool, err error) {
	if bl, ok := be.(BytesLoader); ok && f.File != nil {
		if s, err := bl.LoadONNX(f.File, f.Model); err == nil {
			return s, true, nil
		}
	}
	s, err = be.Load(f.Model)
	return s, false, err
}

// CompareModelFiles loads a and b in be and compares them interleaved on
// inputs inA and inB (latency(b)/latency(a), see ComparePairs), over the
// session pairs SessionPairs loads.
func CompareModelFiles(be Backend, a, b ModelFile, inA, inB map[string]*graph.Tensor, opts MeasureOptions) (Comparison, error) {
	as, bs, err := SessionPairs(be, a, b, inA)
	defer CloseAll(as)
	defer CloseAll(bs)
	if err != nil {
		return Comparison{}, err
	}
	return ComparePairs(as, bs, inA, inB, opts)
}

// CompareModels is CompareModelFiles for two models without files, on
// the same inputs.
func CompareModels(be Backend, a, b *graph.Model, in map[string]*graph.Tensor, opts MeasureOptions) (Comparison, error) {
	return CompareModelFiles(be, ModelFile{Model: a}, ModelFile{Model: b}, in, in, opts)
}

// A session of a model well under a millisecond can run it at its own
// pace for its whole life: the corpus GPT decoder's original ran at a
// median of 220 µs in one session against 99 µs for its optimised model
// in another, and optimize printed 2.24x, where sessions of both files
// pooled over five rounds ran 1.14x apart (their block minima read 1.14x
// too). Such a model is compared over shortPairs pairs of sessions.
const shortPairs = 8

// SessionPairs loads a and b as a pair of sessions and times a few runs of
// a on inA; when it runs under ShortLatency, it loads shortPairs-1 pairs
// more, each pair loading its two models in the other order than the pair
// before. The sessions loaded are returned, also with an error, for the
// caller to close.
func SessionPairs(be Backend, a, b ModelFile, inA map[string]*graph.Tensor) (as, bs []Session, err error) {
	load := func(i int) error {
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		s1, err := first.Load(be)
		if err != nil {
			return err
		}
		s2, err := second.Load(be)
		if err != nil {
			s1.Close()
			return err
		}
		if i%2 == 1 {
			s1, s2 = s2, s1
		}
		as, bs = append(as, s1), append(bs, s2)
		return nil
	}
	if err := load(0); err != nil {
		return as, bs, fmt.Errorf("loading the models to compare: %w", err)
	}
	short, err := runsUnder(as[0], inA, ShortLatency)
	for i := 1; err == nil && short && i < shortPairs; i++ {
		err = load(i)
	}
	return as, bs, err
}

// runsUnder reports whether s runs under d: the median of 9 runs after
// 2 discarded ones. It stops as soon as 5 of the 9 fall on one side of
// d, which decides the median, or when the first two timed runs both
// take farOver times d: a model of 690 ms is run 4 times, not 11.
func runsUnder(s Session, in map[string]*graph.Tensor, d time.Duration) (bool, error) {
	defer onOneThread()()
	under, over, far := 0, 0, 0
	for i := 0; under < 5 && over < 5; i++ {
		t0 := now()
		if err := runForTiming(s, in); err != nil {
			return false, err
		}
		took := now().Sub(t0)
		switch {
		case i < 2:
		case took < d:
			under++
		default:
			over++
			if took >= farOver*d {
				far++
			}
		}
		if i == 3 && far == 2 {
			return false, nil
		}
	}
	return under == 5, nil
}

// farOver is how many times longer than the threshold runsUnder's first
// two timed runs must both take to settle the question without more: a
// model under the threshold would need two stalls of ten times its run
// in a row. ViT-B/16's never-slower and sweep comparisons ran it 7 times
// for this, 0.6 s at batch 1 and 1.2 s at batch 2.
const farOver = 10

// CloseAll closes every session of ss (those SessionPairs returns).
func CloseAll(ss []Session) {
	for _, s := range ss {
		s.Close()
	}
}

// ProbeLatency loads m in be and returns the median of probeRuns runs on
// in, after two discarded ones: a first reading of its latency, to plan
// comparisons by (whether it runs under ShortLatency, how long a time cap
// gives it enough runs).
func ProbeLatency(be Backend, m ModelFile, in map[string]*graph.Tensor) (time.Duration, error) {
	s, err := m.Load(be)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	defer onOneThread()()
	var runs []time.Duration
	for i := range probeRuns + 2 {
		t0 := now()
		if err := runForTiming(s, in); err != nil {
			return 0, err
		}
		if i >= 2 {
			runs = append(runs, now().Sub(t0))
		}
	}
	return Summarize(runs).Median, nil
}

// probeRuns is the number of runs ProbeLatency times.
const probeRuns = 3
