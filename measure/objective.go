package measure

import (
	"fmt"
	"math"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// Objectives that optimisation can minimise (`--objective`).
const (
	ObjectiveLatency = "latency"
	ObjectiveMemory  = "memory"
	ObjectiveBoth    = "both"
)

// Objectives lists the objective names.
var Objectives = []string{ObjectiveLatency, ObjectiveMemory, ObjectiveBoth}

// Cached wraps lm so that every graph is scored once (by canonical hash).
func Cached(lm LatencyModel) LatencyModel {
	if c, ok := lm.(*cachedLatency); ok {
		return c
	}
	return &cachedLatency{inner: lm, cache: make(map[graph.Hash]Stats)}
}

// Combined scores a model by the geometric mean of two models' medians,
// so that a ratio of two Combined scores is the geometric mean of the two
// ratios: a 10% latency gain weighs as much as a 10% memory gain. With
// the X-RLflow reward, which divides differences by the start's score,
// both objectives count equally whatever their units.
type Combined struct {
	A, B LatencyModel
}

// Name implements LatencyModel ("A+B").
func (c Combined) Name() string { return c.A.Name() + "+" + c.B.Name() }

// Latency implements LatencyModel; only Median (and Min, P10, P90, set to
// it) is meaningful, and Bytes is the memory figure of A or B (B's when
// both have one).
func (c Combined) Latency(m *graph.Model) (Stats, error) {
	a, err := c.A.Latency(m)
	if err != nil {
		return Stats{}, err
	}
	b, err := c.B.Latency(m)
	if err != nil {
		return Stats{}, err
	}
	if a.Median <= 0 || b.Median <= 0 {
		return Stats{}, fmt.Errorf("combined objective: non-positive scores %v (%s) and %v (%s)", a.Median, c.A.Name(), b.Median, c.B.Name())
	}
	d := time.Duration(math.Sqrt(float64(a.Median)) * math.Sqrt(float64(b.Median)))
	mem := b.Bytes
	if mem == 0 {
		mem = a.Bytes
	}
	return Stats{N: 1, Median: d, P10: d, P90: d, Min: d, Stable: a.Stable && b.Stable, Bytes: mem}, nil
}
