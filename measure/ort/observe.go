package ort

import (
	"fmt"

	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/xrl-dev/xrl/graph"
)

// ObserveTypes runs m once in ONNX Runtime on inputs with every node output
// exposed as a graph output, and returns the dtype and shape each one had
// (keyed by value name). m's graph inputs must have static shapes; the
// other values need no shapes. It is how xrl learns the shapes behind ops
// it cannot infer: ops outside its table, control flow, and shapes that
// depend on run-time values (these hold for the given inputs).
func (b *Backend) ObserveTypes(m *graph.Model, inputs map[string]*graph.Tensor) (map[string]graph.ObservedType, error) {
	c := m.Clone()
	g := c.Graph
	seen := make(map[*graph.Value]bool, len(g.Outputs))
	for _, v := range g.Outputs {
		seen[v] = true
	}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o != nil && !seen[o] {
				seen[o] = true
				g.Outputs = append(g.Outputs, o)
			}
		}
	}
	// Every value must survive as it is in the graph: no optimisation.
	data, opts, err := b.encode(c, ortgo.GraphOptimizationLevelDisableAll)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	var inNames, outNames []string
	var vals []ortgo.Value
	defer func() { destroyAll(vals) }()
	for _, v := range g.Inputs {
		if v.Const != nil {
			continue
		}
		t, ok := inputs[v.Name]
		if !ok {
			return nil, fmt.Errorf("missing input %q", v.Name)
		}
		ov, err := toORT(t)
		if err != nil {
			return nil, fmt.Errorf("input %q: %w", v.Name, err)
		}
		inNames = append(inNames, v.Name)
		vals = append(vals, ov)
	}
	if len(vals) == 0 {
		return nil, errNoInputs
	}
	for _, v := range g.Outputs {
		outNames = append(outNames, v.Name)
	}
	s, err := ortgo.NewDynamicAdvancedSessionWithONNXData(data, inNames, outNames, opts)
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime rejected the model with its intermediate values as outputs: %w", err)
	}
	defer s.Destroy()
	// Rank-0 values must be pre-allocated (see scalar.go): ask ONNX
	// Runtime which outputs it types as scalars.
	_, infos, err := ortgo.GetInputOutputInfoWithONNXData(data)
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime: reading output types: %w", err)
	}
	dts := make([]graph.DType, len(outNames))
	scalar := make([]bool, len(outNames))
	for i, info := range infos {
		if i < len(dts) && info.OrtValueType == ortgo.ONNXTypeTensor {
			dts[i], scalar[i] = graph.DType(info.DataType), len(info.Dimensions) == 0
		}
	}
	outs, err := scalarOutputs(dts, scalar)
	if err != nil {
		return nil, err
	}
	defer destroyAll(outs)
	if err := s.Run(vals, outs); err != nil {
		return nil, fmt.Errorf("ONNX Runtime: %w", err)
	}
	res := make(map[string]graph.ObservedType, len(outs))
	for i, v := range outs {
		t, err := typeOf(v)
		if err != nil {
			return nil, fmt.Errorf("value %q: %w", outNames[i], err)
		}
		res[outNames[i]] = t
	}
	return res, nil
}
