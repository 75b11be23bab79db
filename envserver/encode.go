package envserver

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/xrl-dev/xrl/env"
	envv1 "github.com/xrl-dev/xrl/proto/xrl/env/v1"
)

// observationSpecs describes the Observation fields (see env.proto).
func observationSpecs(numActions int) []*envv1.TensorSpec {
	i32, f32 := envv1.DType_DTYPE_INT32, envv1.DType_DTYPE_FLOAT32
	return []*envv1.TensorSpec{
		{Name: "node_class", Dtype: i32, Shape: []int64{-1}, Description: "op class of every node, graph by graph (current graph first, then candidates in action order)"},
		{Name: "senders", Dtype: i32, Shape: []int64{-1}, Description: "producing node of every edge, local to its graph"},
		{Name: "receivers", Dtype: i32, Shape: []int64{-1}, Description: "consuming node of every edge, local to its graph"},
		{Name: "edge_features", Dtype: f32, Shape: []int64{-1, env.EdgeDim}, Description: "tensor shape of every edge, left-padded to rank 4, divided by shape_scale"},
		{Name: "global_features", Dtype: f32, Shape: []int64{-1, env.GlobalDim}, Description: "global attribute of every graph"},
		{Name: "node_counts", Dtype: i32, Shape: []int64{-1}, Description: "node count of every graph"},
		{Name: "edge_counts", Dtype: i32, Shape: []int64{-1}, Description: "edge count of every graph"},
		{Name: "action_mask", Dtype: envv1.DType_DTYPE_BOOL, Shape: []int64{int64(numActions)}, Description: "valid actions; the last is No-Op"},
	}
}

// specOf describes an environment's actions and observations.
func specOf(e *env.Env) *envv1.EnvSpec {
	cfg := e.Config()
	n := cfg.MaxCandidates + 1
	start := env.EncodeGraph(cfg.Model.Graph)
	lm := ""
	if cfg.Latency != nil {
		lm = cfg.Latency.Name()
	}
	return &envv1.EnvSpec{
		NumActions: int32(n), NoOpAction: int32(n - 1),
		MaxCandidates: int32(cfg.MaxCandidates), Horizon: int32(cfg.Horizon), FeedbackEvery: int32(cfg.FeedbackEvery),
		Runtime: lm, OpClasses: env.OpClasses(), EdgeDim: env.EdgeDim, GlobalDim: env.GlobalDim,
		ShapeScale: env.ShapeScale, Observation: observationSpecs(n),
		ModelNodes:        int32(len(cfg.Model.Graph.Nodes)),
		InitialGraphNodes: int32(start.NumNodes()), InitialGraphEdges: int32(start.NumEdges()),
	}
}

// EncodeObservation converts an observation to its wire form: the graph
// tensors of the current graph and of each candidate, concatenated.
func EncodeObservation(o *env.Observation) *envv1.Observation {
	graphs := append([]*env.GraphTensor{o.Current}, o.Candidates...)
	var nodes, edges int
	for _, g := range graphs {
		nodes += g.NumNodes()
		edges += g.NumEdges()
	}
	class := make([]byte, 0, 4*nodes)
	send := make([]byte, 0, 4*edges)
	recv := make([]byte, 0, 4*edges)
	feat := make([]byte, 0, 4*env.EdgeDim*edges)
	glob := make([]byte, 0, 4*env.GlobalDim*len(graphs))
	nc := make([]byte, 0, 4*len(graphs))
	ec := make([]byte, 0, 4*len(graphs))
	for _, g := range graphs {
		class = appendInt32s(class, g.NodeClass)
		send = appendInt32s(send, g.Senders)
		recv = appendInt32s(recv, g.Receivers)
		feat = appendFloat32s(feat, g.EdgeFeat)
		glob = appendFloat32s(glob, g.Global)
		nc = binary.LittleEndian.AppendUint32(nc, uint32(g.NumNodes()))
		ec = binary.LittleEndian.AppendUint32(ec, uint32(g.NumEdges()))
	}
	mask := make([]byte, len(o.Mask))
	for i, ok := range o.Mask {
		if ok {
			mask[i] = 1
		}
	}
	i32, f32 := envv1.DType_DTYPE_INT32, envv1.DType_DTYPE_FLOAT32
	G := int64(len(graphs))
	return &envv1.Observation{
		NodeClass:      &envv1.Tensor{Dtype: i32, Shape: []int64{int64(nodes)}, Data: class},
		Senders:        &envv1.Tensor{Dtype: i32, Shape: []int64{int64(edges)}, Data: send},
		Receivers:      &envv1.Tensor{Dtype: i32, Shape: []int64{int64(edges)}, Data: recv},
		EdgeFeatures:   &envv1.Tensor{Dtype: f32, Shape: []int64{int64(edges), env.EdgeDim}, Data: feat},
		GlobalFeatures: &envv1.Tensor{Dtype: f32, Shape: []int64{G, env.GlobalDim}, Data: glob},
		NodeCounts:     &envv1.Tensor{Dtype: i32, Shape: []int64{G}, Data: nc},
		EdgeCounts:     &envv1.Tensor{Dtype: i32, Shape: []int64{G}, Data: ec},
		ActionMask:     &envv1.Tensor{Dtype: envv1.DType_DTYPE_BOOL, Shape: []int64{int64(len(mask))}, Data: mask},
	}
}

func appendInt32s(b []byte, xs []int32) []byte {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func appendFloat32s(b []byte, xs []float32) []byte {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// encodeInfo converts step information to its wire form.
func encodeInfo(i env.Info) *envv1.StepInfo {
	rc := make(map[string]int32, len(i.RuleCandidates))
	for k, v := range i.RuleCandidates {
		rc[k] = int32(v)
	}
	ns := func(d time.Duration) int64 { return int64(d) }
	return &envv1.StepInfo{Step: int32(i.Step), Rule: i.Rule, NoOp: i.NoOp, Candidates: int32(i.Candidates),
		Shown: int32(i.Shown), RuleCandidates: rc, Measured: i.Measured, LatencyNs: ns(i.Latency),
		InitialLatencyNs: ns(i.InitialLatency), BestLatencyNs: ns(i.BestLatency), Nodes: int32(i.Nodes),
		CandidateTimeNs: ns(i.CandidateTime)}
}
