package measure

import (
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

func TestCombinedIsGeometricMean(t *testing.T) {
	c := Combined{A: fixedModel{"a", 400}, B: fixedModel{"b", 900}}
	st, err := c.Latency(&graph.Model{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Median != 600 || c.Name() != "a+b" {
		t.Errorf("combined %v %q, want 600 a+b", st.Median, c.Name())
	}
	if _, err := (Combined{A: fixedModel{"a", 0}, B: fixedModel{"b", 1}}).Latency(&graph.Model{}); err == nil {
		t.Error("a zero score was accepted")
	}
}
