package cli

import (
	"os"
	"sync"
	"testing"
)

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureErr  error
)

type fixtureError struct {
	err error
	out string
}

func (e *fixtureError) Error() string { return e.err.Error() + ": " + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}
