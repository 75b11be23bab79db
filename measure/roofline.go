package measure

import (
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// RooflineName is the name of the Roofline latency model (`--runtime
// roofline`).
const RooflineName = "roofline"

// Roofline is a deterministic analytic latency model: a fixed cost per
// operator launch, compute at a fixed arithmetic rate and every output
// written at a fixed bandwidth. It rewards what a small model on a CPU
// rewards (fewer operators, less arithmetic, less memory traffic) without
// timing anything, so that rewards are identical from run to run and
// machine to machine: for reinforcement-learning experiments and tests
// that must not depend on a noisy clock. It is not a prediction of any
// runtime's latency; measure with "ort" for that.
type Roofline struct {
	// PerOp is the launch cost of one operator (default 5 µs).
	PerOp time.Duration
	// FLOPsPerNs is the arithmetic rate (default 20, i.e. 20 GFLOP/s).
	FLOPsPerNs float64
	// BytesPerNs is the output bandwidth (default 10, i.e. 10 GB/s).
	BytesPerNs float64
}

func init() {
	RegisterLatencyModel(RooflineName, func(BackendOptions, MeasureOptions) (LatencyModel, error) {
		return Roofline{}, nil
	})
}

// Name implements LatencyModel.
func (Roofline) Name() string { return RooflineName }

// Latency implements LatencyModel.
func (r Roofline) Latency(m *graph.Model) (Stats, error) {
	perOp, rate, bw := r.PerOp, r.FLOPsPerNs, r.BytesPerNs
	if perOp <= 0 {
		perOp = 5 * time.Microsecond
	}
	if rate <= 0 {
		rate = 20
	}
	if bw <= 0 {
		bw = 10
	}
	var bytes float64
	for _, n := range m.Graph.Nodes {
		for _, o := range n.Outputs {
			if o != nil && o.ShapeKnown && o.Shape.Static() {
				bytes += float64(o.DType.Size() * graph.NumElements(o.Shape.Ints()))
			}
		}
	}
	ns := float64(len(m.Graph.Nodes))*float64(perOp) + float64(graph.FLOPs(m.Graph))/rate + bytes/bw
	d := time.Duration(ns)
	return Stats{N: 1, Median: d, P10: d, P90: d, Min: d, Steady: d, Stable: true}, nil
}
