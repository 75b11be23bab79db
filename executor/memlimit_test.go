package executor

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
)

// TestMemoryLimit lowers the Go memory limit (which bounds the memory the
// checks consider available) and expects NewExecutor and RandomInputs to
// refuse graphs that do not fit, naming what does not fit, before
// allocating it.
func TestMemoryLimit(t *testing.T) {
	// Relu(x) and Sigmoid(x) on 1x64x64x64 float32 (1 MiB each) live
	// together until their Add: the planned buffers need 2 MiB, each
	// value 1 MiB.
	g := graphtest.Build(t, func(b *graph.Builder) {
		x := b.Input("x", graph.Float32, 1, 64, 64, 64)
		r := b.Op("Relu", []*graph.Value{x}, nil)
		s := b.Op("Sigmoid", []*graph.Value{x}, nil)
		b.Output(b.Op("Relu", []*graph.Value{b.Op("Add", []*graph.Value{r, s}, nil)}, nil))
	})
	cases := []struct {
		name  string
		limit int64
		want  []string // in the errors of NewExecutor and RandomInputs ("" : none)
		rand  []string
	}{
		{"fits", 64 << 20, nil, nil},
		{"value too large", 512 << 10, []string{`input "x"`, "1.0 MiB"}, []string{`input "x"`, "1.0 MiB"}},
		{"plan too large", 1536 << 10, []string{"planned buffers"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := debug.SetMemoryLimit(c.limit)
			_, err := NewExecutor(g, ExecOptions{})
			_, rerr := measure.RandomInputs(g, 1)
			debug.SetMemoryLimit(old)
			checkErr(t, "NewExecutor", err, c.want)
			checkErr(t, "RandomInputs", rerr, c.rand)
		})
	}
}

// checkErr expects err to mention every string of want, or no error when
// want is empty.
func checkErr(t *testing.T, what string, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
		return
	}
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not mention %q", what, err, w)
		}
	}
}
