package measure

import (
	"fmt"
	"sort"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// BytesProfiler is implemented by profilers that can profile a model from
// its serialised ONNX as it is (see BytesLoader), m being that model as
// read and bound.
type BytesProfiler interface {
	ProfileONNX(data []byte, m *graph.Model, warmup, runs int) (*Profile, error)
}

// ProfileOn profiles m on be: warmup untimed runs, then runs profiled
// runs (see Profiler). It is an error when be has no per-node profiler
// (only ONNX Runtime has one).
func ProfileOn(be Backend, m *graph.Model, warmup, runs int) (*Profile, error) {
	defer onOneThread()()
	p, ok := be.(Profiler)
	if !ok {
		return nil, fmt.Errorf("the %s backend has no per-node profiler (ONNX Runtime has one)", be.Name())
	}
	return p.Profile(m, warmup, runs)
}

// Profile profiles the model file on be as Load loads it: its file when be
// is a BytesProfiler and there is one (a file the backend refuses as
// given is profiled as the model read from it), else its model.
func (o ModelFile) Profile(be Backend, warmup, runs int) (*Profile, error) {
	defer onOneThread()()
	if bp, ok := be.(BytesProfiler); ok && o.File != nil {
		if p, err := bp.ProfileONNX(o.File, o.Model, warmup, runs); err == nil {
			return p, nil
		}
	}
	return ProfileOn(be, o.Model, warmup, runs)
}

// RunOps returns the operator types be ends up running for the original
// o (its file as given when there is one and be can load it so, else its
// model), sorted: after the engine's own graph optimisation, so ONNX
// Runtime's fusions (com.microsoft ops such as Attention,
// SkipLayerNormalization or FusedMatMul) appear and the nodes they
// replaced do not. The model runs once under the profiler, after one
// warm-up run.
func RunOps(be Backend, o ModelFile) ([]string, error) {
	p, err := o.Profile(be, 1, 1)
	if err != nil {
		return nil, err
	}
	return p.Ops(), nil
}

// Ops returns the distinct operator types of p's nodes, sorted.
func (p *Profile) Ops() []string {
	seen := map[string]bool{}
	var ops []string
	for _, n := range p.Nodes {
		if !seen[n.Op] {
			seen[n.Op] = true
			ops = append(ops, n.Op)
		}
	}
	sort.Strings(ops)
	return ops
}

// OpTime is the time of one operator type in a profile.
type OpTime struct {
	// Op is the operator type as the engine names it.
	Op string `json:"op"`
	// Time is the summed time of its nodes per run; Nodes counts them.
	Time  time.Duration `json:"time_ns"`
	Nodes int           `json:"nodes"`
	// Share is Time over the profile's summed node times (Profile.Sum).
	Share float64 `json:"share"`
}

// ByOp returns p's node times summed per operator type, the largest
// first (equal times by name), each with its share of p.Sum().
func (p *Profile) ByOp() []OpTime {
	index := map[string]int{}
	var ops []OpTime
	for _, n := range p.Nodes {
		i, ok := index[n.Op]
		if !ok {
			i = len(ops)
			index[n.Op] = i
			ops = append(ops, OpTime{Op: n.Op})
		}
		ops[i].Time += n.Time
		ops[i].Nodes++
	}
	total := p.Sum()
	for i := range ops {
		ops[i].Share = timeShare(ops[i].Time, total)
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Time != ops[j].Time {
			return ops[i].Time > ops[j].Time
		}
		return ops[i].Op < ops[j].Op
	})
	return ops
}

// GEMMShare returns the share of p's summed node times spent in GEMM-like
// operators (IsGEMMLike).
func (p *Profile) GEMMShare() float64 {
	var gemm time.Duration
	for _, n := range p.Nodes {
		if IsGEMMLike(n.Op) {
			gemm += n.Time
		}
	}
	return timeShare(gemm, p.Sum())
}

// timeShare returns part over total, 0 when total is not positive.
func timeShare(part, total time.Duration) float64 {
	if total <= 0 {
		return 0
	}
	return float64(part) / float64(total)
}

// gemmLikeOps are the engine operators whose time is mostly matrix
// products, as ONNX Runtime's profile names them: the plain and fused
// products and convolutions (lowered to GEMM), and the attention kernels,
// whose time is dominated by their projections and per-head products
// (their softmax counts with them).
var gemmLikeOps = map[string]bool{
	"MatMul": true, "Gemm": true, "FusedMatMul": true, "FusedGemm": true,
	"MatMulInteger": true, "QLinearMatMul": true, "DynamicQuantizeMatMul": true, "MatMulIntegerToFloat": true,
	"Einsum":    true,
	"Attention": true, "MultiHeadAttention": true, "GroupQueryAttention": true, "QAttention": true,
	"Conv": true, "FusedConv": true, "NhwcFusedConv": true, "ConvTranspose": true, "QLinearConv": true, "ConvInteger": true,
}

// IsGEMMLike reports whether the engine operator op spends its time
// mostly in matrix products: MatMul, Gemm and their fused and quantised
// forms, Einsum, convolutions, and the com.microsoft attention kernels.
func IsGEMMLike(op string) bool { return gemmLikeOps[op] }
