package measure

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// SessionPool keeps the sessions a run has loaded open after their users
// close them, so that the next user of the same model (the same
// *graph.Model) on the same backend gets the open session instead of a
// new one. ONNX Runtime spent about a minute optimising a 50,000-node
// graph for each session on a busy 2-core machine; verification and the
// never-slower measurement of one run load the same models, so the pool
// saves all but the first load of each. A session is lent to one user at
// a time: a user asking for several sessions of one model at once (see
// SessionPairs) gets distinct ones. At most maxIdle sessions are kept
// idle, the least recently returned closed first. A pool is not for
// concurrent users of one session; Close releases every session.
type SessionPool struct {
	mu       sync.Mutex
	maxIdle  int
	backends map[string]*pooledBackend
	files    map[*graph.Model][]byte
	idle     []*pooledSession // least recently returned first
	closed   bool
}

// NewSessionPool returns an empty pool that keeps at most maxIdle idle
// sessions (at least 1).
func NewSessionPool(maxIdle int) *SessionPool {
	return &SessionPool{maxIdle: max(maxIdle, 1), backends: map[string]*pooledBackend{}, files: map[*graph.Model][]byte{}}
}

// Backend returns the pool's backend name built with opts (NewBackend),
// one per name and effective options: options that differ only in their
// defaults (0 threads and the machine's core count, OptLevel "" and
// "all") share it and its sessions.
func (p *SessionPool) Backend(name string, opts BackendOptions) (Backend, error) {
	if opts.Threads <= 0 {
		opts.Threads = runtime.NumCPU()
	}
	if opts.OptLevel == "" {
		opts.OptLevel = "all"
	}
	key := fmt.Sprintf("%s threads=%d opt=%s", name, opts.Threads, opts.OptLevel)
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.backends[key]; ok {
		return b, nil
	}
	be, err := NewBackend(name, opts)
	if err != nil {
		return nil, err
	}
	return p.wrap(key, be), nil
}

// wrap makes be the pool's backend under key; p.mu is held.
func (p *SessionPool) wrap(key string, be Backend) *pooledBackend {
	b := &pooledBackend{pool: p, be: be}
	p.backends[key] = b
	return b
}

// SetFile says that m was read from the serialised ONNX data: a backend
// that loads ONNX as it is (BytesLoader) loads m from data, as
// ModelFile.Load does, whether it is asked for m or for its file.
func (p *SessionPool) SetFile(m *graph.Model, data []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[m] = data
}

// Close closes every idle session and makes the pool close sessions as
// they are returned; it returns the first error.
func (p *SessionPool) Close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	var errs []error
	for _, s := range idle {
		errs = append(errs, s.s.Close())
	}
	return errors.Join(errs...)
}

// take removes and returns an idle session of m on b, nil when there is
// none: one loaded for m, or from the file m was read from (SetFile),
// whichever model that file was loaded for. The bound original and the
// original as declared are read from one file; a session of the file runs
// either.
func (p *SessionPool) take(b *pooledBackend, m *graph.Model) *pooledSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.files[m]
	for i, s := range p.idle {
		if s.be == b && (s.m == m || sameFile(s.file, f)) {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			return s
		}
	}
	return nil
}

// sameFile reports whether a and b are one file's data (the same bytes
// in memory, not merely equal ones).
func sameFile(a, b []byte) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// give returns s to the idle list, closing the oldest idle session when
// there are too many (or s itself once the pool is closed).
func (p *SessionPool) give(s *pooledSession) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return s.s.Close()
	}
	p.idle = append(p.idle, s)
	var evict *pooledSession
	if len(p.idle) > p.maxIdle {
		evict, p.idle = p.idle[0], p.idle[1:]
	}
	p.mu.Unlock()
	if evict != nil {
		return evict.s.Close()
	}
	return nil
}

// file returns the data m was read from (SetFile), nil when unknown.
func (p *SessionPool) file(m *graph.Model) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.files[m]
}

// pooledBackend is a backend whose sessions come from and go back to its
// pool.
type pooledBackend struct {
	pool *SessionPool
	be   Backend
}

// Name returns the wrapped backend's name.
func (b *pooledBackend) Name() string { return b.be.Name() }

// Unwrap returns the backend the pool loads with, for what the pool does
// not forward (Profiler, for one).
func (b *pooledBackend) Unwrap() Backend { return b.be }

// Load lends an idle session of m, or loads a new one: from m's file
// when the pool knows it and the backend loads files (see ModelFile.Load).
func (b *pooledBackend) Load(m *graph.Model) (Session, error) {
	if s := b.pool.take(b, m); s != nil {
		return b.lend(m, s.s, s.file), nil
	}
	file := b.pool.file(m)
	s, fromFile, err := ModelFile{Model: m, File: file}.load(b.be)
	if err != nil {
		return nil, err
	}
	if !fromFile {
		file = nil
	}
	return b.lend(m, s, file), nil
}

// LoadONNX is Load for m read from data; it makes data m's file in the
// pool when it had none.
func (b *pooledBackend) LoadONNX(data []byte, m *graph.Model) (Session, error) {
	b.pool.mu.Lock()
	if b.pool.files[m] == nil {
		b.pool.files[m] = data
	}
	b.pool.mu.Unlock()
	return b.Load(m)
}

func (b *pooledBackend) lend(m *graph.Model, s Session, file []byte) Session {
	return &pooledSession{be: b, m: m, s: s, file: file}
}

// pooledSession is a session lent by a pool: closing it returns it.
type pooledSession struct {
	be *pooledBackend
	m  *graph.Model
	s  Session
	// file is the ONNX data the session was loaded from as it is; nil
	// when it was loaded from m.
	file     []byte
	returned bool
}

// Run runs the pooled session.
func (s *pooledSession) Run(in map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	if s.returned {
		return nil, errors.New("measure: session run after it was closed")
	}
	return s.s.Run(in)
}

// RunDiscard runs the pooled session without its outputs when it can
// (Discarder).
func (s *pooledSession) RunDiscard(in map[string]*graph.Tensor) error {
	if s.returned {
		return errors.New("measure: session run after it was closed")
	}
	return runForTiming(s.s, in)
}

// RunTimed runs the pooled session and returns its own timing of the run
// when it has one (TimedRunner), else the time of RunDiscard.
func (s *pooledSession) RunTimed(in map[string]*graph.Tensor) (time.Duration, error) {
	if s.returned {
		return 0, errors.New("measure: session run after it was closed")
	}
	return timedRun(s.s, in)
}

// Close returns the session to its pool; closing it again does nothing.
func (s *pooledSession) Close() error {
	if s.returned {
		return nil
	}
	s.returned = true
	return s.be.pool.give(&pooledSession{be: s.be, m: s.m, s: s.s, file: s.file})
}
