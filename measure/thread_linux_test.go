package measure

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// threadSession records the OS thread of every run. Each run blocks in a
// system call long enough for the scheduler to hand the goroutine's P to
// another thread, as a cgo call into ONNX Runtime does, so that a goroutine
// not locked to its thread comes back on whichever thread is free.
type threadSession struct{ tids map[int]int }

func (s *threadSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	ts := syscall.Timespec{Nsec: int64(300 * time.Microsecond)}
	syscall.Nanosleep(&ts, nil)
	s.tids[syscall.Gettid()]++
	return nil, nil
}

func (s *threadSession) Close() error { return nil }

// TestTimingOnOneThread: every timing (Measure, Compare, ComparePairs,
// CompareMany, ProbeLatency) runs its sessions from one OS thread, while
// other goroutines keep every P busy.
func TestTimingOnOneThread(t *testing.T) {
	var stop atomic.Bool
	defer stop.Store(true)
	for range runtime.GOMAXPROCS(0) + 1 {
		go func() {
			for !stop.Load() {
				runtime.Gosched()
			}
		}()
	}
	opts := MeasureOptions{Warmup: 2, Runs: 40, MaxRuns: 40, MinTime: time.Millisecond, MaxTime: 300 * time.Millisecond, KeepGarbage: true}
	for _, tc := range []struct {
		name string
		time func(a, b *threadSession) error
	}{
		{"Measure", func(a, _ *threadSession) error { _, err := Measure(a, nil, opts, nil); return err }},
		{"Compare", func(a, b *threadSession) error { _, err := Compare(a, b, nil, nil, opts); return err }},
		{"ComparePairs", func(a, b *threadSession) error {
			_, err := ComparePairs([]Session{a, a}, []Session{b, b}, nil, nil, opts)
			return err
		}},
		{"CompareMany", func(a, b *threadSession) error {
			_, err := CompareMany(a, []Session{b}, nil, []MeasureOptions{opts})
			return err
		}},
		{"ProbeLatency", func(a, _ *threadSession) error {
			_, err := ProbeLatency(sessionBackend{a}, ModelFile{Model: &graph.Model{}}, nil)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tids := map[int]int{}
			a, b := &threadSession{tids}, &threadSession{tids}
			if err := tc.time(a, b); err != nil {
				t.Fatal(err)
			}
			if len(tids) != 1 {
				t.Errorf("runs on %d OS threads (runs by thread: %v), want one", len(tids), tids)
			}
		})
	}
}

// sessionBackend loads s for every model.
type sessionBackend struct{ s Session }

func (b sessionBackend) Name() string                       { return "fixed" }
func (b sessionBackend) Load(*graph.Model) (Session, error) { return b.s, nil }
