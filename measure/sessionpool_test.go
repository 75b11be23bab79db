package measure

import (
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
