package pipeline

import (
	"sync"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// declaredSessions is the backend of the verification at the other
// shapes on a runtime that runs a model's symbolic dimensions at any size
// (ONNX Runtime): every binding's copy of the original and of the written
// model is lent one session of that model as declared, loaded once,
// instead of a session of the copy bound at the binding. On ViT-B/16 a
// session took 1.5 s to load, and three bindings loaded six.
type declaredSessions struct {
	be measure.Backend

	mu sync.Mutex
	// declared maps a binding's model to the declared model whose
	// session it is lent.
	declared map[*graph.Model]*graph.Model
	sessions map[*graph.Model]measure.Session
}

func newDeclaredSessions(be measure.Backend) *declaredSessions {
	return &declaredSessions{be: be, declared: map[*graph.Model]*graph.Model{}, sessions: map[*graph.Model]measure.Session{}}
}

// lend makes bound, a binding's copy, use decl's session.
func (d *declaredSessions) lend(bound, decl *graph.Model) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.declared[bound] = decl
}

// Name implements measure.Backend.
func (d *declaredSessions) Name() string { return d.be.Name() }

// Load implements measure.Backend: the session of m's declared model,
// loaded on first use, for a model lent one; a session of m itself
// otherwise.
func (d *declaredSessions) Load(m *graph.Model) (measure.Session, error) {
	d.mu.Lock()
	decl, ok := d.declared[m]
	d.mu.Unlock()
	if !ok {
		return d.be.Load(m)
	}
	d.mu.Lock()
	s, ok := d.sessions[decl]
	d.mu.Unlock()
	if ok {
		return lentSession{s}, nil
	}
	s, err := d.be.Load(decl)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if prev, ok := d.sessions[decl]; ok {
		// Loaded twice at once: keep one.
		s.Close()
		return lentSession{prev}, nil
	}
	d.sessions[decl] = s
	return lentSession{s}, nil
}

// Close closes the sessions loaded (a pooled backend's go back to its
// pool, for the next model verified).
func (d *declaredSessions) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.sessions {
		s.Close()
	}
	d.sessions = map[*graph.Model]measure.Session{}
}

// lentSession is a shared session whose Close leaves it open for the
// next binding.
type lentSession struct{ measure.Session }

// Close implements measure.Session: the session stays open.
func (lentSession) Close() error { return nil }
