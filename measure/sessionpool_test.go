package measure

import (
	"errors"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// countingBackend counts the sessions it loads and closes.
type countingBackend struct{ loads, closes int }

func (b *countingBackend) Name() string { return "counting" }

func (b *countingBackend) Load(*graph.Model) (Session, error) {
	b.loads++
	return countedSession{b}, nil
}

type countedSession struct{ b *countingBackend }

func (countedSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	return nil, nil
}

func (s countedSession) Close() error {
	s.b.closes++
	return nil
}

func TestSessionPool(t *testing.T) {
	m1, m2, m3 := &graph.Model{}, &graph.Model{}, &graph.Model{}
	cases := []struct {
		name string
		// uses lists, in order, the models each use loads at once (all
		// closed before the next use).
		uses          [][]*graph.Model
		maxIdle       int
		loads, closes int // before the pool is closed
	}{
		{"one model used twice loads once", [][]*graph.Model{{m1}, {m1}}, 2, 1, 0},
		{"two users at once get two sessions", [][]*graph.Model{{m1, m1}, {m1, m1}}, 2, 2, 0},
		{"verify then compare: two models", [][]*graph.Model{{m1, m2}, {m1, m2}, {m1, m2}}, 2, 2, 0},
		{"beyond maxIdle the oldest is closed", [][]*graph.Model{{m1}, {m2}, {m3}, {m1}}, 2, 4, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			be := &countingBackend{}
			p := NewSessionPool(tc.maxIdle)
			pb := p.wrap("counting", be)
			for _, use := range tc.uses {
				var ss []Session
				for _, m := range use {
					s, err := pb.Load(m)
					if err != nil {
						t.Fatal(err)
					}
					ss = append(ss, s)
				}
				for _, s := range ss {
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
					s.Close() // a second close does nothing
				}
			}
			if be.loads != tc.loads || be.closes != tc.closes {
				t.Fatalf("loads %d, closes %d; want %d, %d", be.loads, be.closes, tc.loads, tc.closes)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if be.closes != be.loads {
				t.Fatalf("after the pool closed: %d of %d sessions closed", be.closes, be.loads)
			}
		})
	}
}

// fileCountingBackend is a countingBackend that loads files (BytesLoader),
// refusing them when refuse is set (as ONNX Runtime refuses an old
// opset's kernel), and counts those loads apart.
type fileCountingBackend struct {
	countingBackend
	fileLoads int
	refuse    bool
}

func (b *fileCountingBackend) LoadONNX([]byte, *graph.Model) (Session, error) {
	if b.refuse {
		return nil, errors.New("refused")
	}
	b.fileLoads++
	return countedSession{&b.countingBackend}, nil
}

// TestSessionPoolSharesAFile: two models read from one file (the bound
// original and the original as declared) share a session loaded from
// that file; equal bytes elsewhere in memory are another file, and a
// file the backend refused, loaded from its model instead, is not shared.
func TestSessionPoolSharesAFile(t *testing.T) {
	data := []byte("onnx bytes")
	copied := slices.Clone(data)
	for _, c := range []struct {
		name              string
		second            []byte
		refuse            bool
		fileLoads, models int
	}{
		{"one file", data, false, 1, 0},
		{"equal bytes, another file", copied, false, 2, 0},
		{"the file refused", data, true, 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			be := &fileCountingBackend{refuse: c.refuse}
			p := NewSessionPool(4)
			bound, declared := &graph.Model{}, &graph.Model{}
			p.SetFile(bound, data)
			p.SetFile(declared, c.second)
			pb := p.wrap("file", be)
			for _, m := range []*graph.Model{bound, declared, bound} {
				s, err := pb.Load(m)
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
			}
			if be.fileLoads != c.fileLoads || be.loads != c.models {
				t.Errorf("%d loads of the file, %d of the models; want %d and %d", be.fileLoads, be.loads, c.fileLoads, c.models)
			}
			p.Close()
		})
	}
}
