package pipeline

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// countingBackend loads sessions that record whether they were closed.
type countingBackend struct {
	loads    map[*graph.Model]int
	sessions []*closeSession
}

func (b *countingBackend) Name() string { return "ort" }

func (b *countingBackend) Load(m *graph.Model) (measure.Session, error) {
	b.loads[m]++
	s := &closeSession{}
	b.sessions = append(b.sessions, s)
	return s, nil
}

type closeSession struct{ closed bool }

func (s *closeSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	return nil, nil
}
func (s *closeSession) Close() error { s.closed = true; return nil }

// TestDeclaredSessions checks that the bindings' copies of a model share
// one session of the declared model, which a binding's Close leaves open
// and Close closes, and that a model lent none is loaded as itself.
func TestDeclaredSessions(t *testing.T) {
	be := &countingBackend{loads: map[*graph.Model]int{}}
	d := newDeclaredSessions(be)
	decl, other := &graph.Model{}, &graph.Model{}
	for range 3 {
		bound := &graph.Model{}
		d.lend(bound, decl)
		s, err := d.Load(bound)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Load(other); err != nil {
		t.Fatal(err)
	}
	if be.loads[decl] != 1 || be.loads[other] != 1 || len(be.loads) != 2 {
		t.Fatalf("loads %v: want the declared model once and the other model once", be.loads)
	}
	if be.sessions[0].closed {
		t.Fatal("a binding's Close closed the shared session")
	}
	d.Close()
	if !be.sessions[0].closed {
		t.Fatal("Close left the shared session open")
	}
}
