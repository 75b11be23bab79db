package measure

import (
	"errors"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

type fixedModel struct {
	name string
	d    time.Duration
}

func (f fixedModel) Name() string { return f.name }
func (f fixedModel) Latency(*graph.Model) (Stats, error) {
	return Stats{N: 1, Median: f.d, Stable: true}, nil
}

type fixedMemory struct {
	name string
	b    Bytes
	err  error
}

func (f fixedMemory) Name() string                       { return f.name }
func (f fixedMemory) Memory(*graph.Model) (Bytes, error) { return f.b, f.err }

func TestCombinedIsGeometricMean(t *testing.T) {
	c := Combined{Time: fixedModel{"a", 400}, Memory: fixedMemory{name: "b", b: 900}}
	st, err := c.Latency(&graph.Model{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Median != 600 || c.Name() != "a+b" || st.Bytes != 900 {
		t.Errorf("combined %v %q %d bytes, want 600 a+b 900 bytes", st.Median, c.Name(), int64(st.Bytes))
	}
	if _, err := (Combined{Time: fixedModel{"a", 0}, Memory: fixedMemory{name: "b", b: 1}}).Latency(&graph.Model{}); err == nil {
		t.Error("a zero score was accepted")
	}
}

func TestMemoryObjective(t *testing.T) {
	o := MemoryObjective{Memory: fixedMemory{name: "memory", b: 3 << 20}}
	st, err := o.Latency(&graph.Model{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Name() != "memory" || st.Bytes != 3<<20 || st.Median != MemoryScore(3<<20) || st.Min != st.Median || !st.Stable {
		t.Errorf("memory objective %q %+v, want memory scored %v", o.Name(), st, MemoryScore(3<<20))
	}
	failing := errors.New("cannot plan")
	if _, err := (MemoryObjective{Memory: fixedMemory{err: failing}}).Latency(&graph.Model{}); !errors.Is(err, failing) {
		t.Errorf("error %v, want the memory model's", err)
	}
}
