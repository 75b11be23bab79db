package ort

import (
	"fmt"

	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/xrl-dev/xrl/graph"
)

// newEmptyScalar returns a zero rank-0 value of dtype dt, used as a
// pre-allocated output.
func newEmptyScalar(dt graph.DType) (ortgo.Value, error) {
	t := graph.NewTensor(dt)
	if t == nil || t.Data == nil {
		return nil, fmt.Errorf("%v scalars are not supported by the ort backend", dt)
	}
	return toORT(t)
}

// scalarOutputs pre-allocates a Scalar for each output whose type (dts[i],
// rank[i]) says it is rank 0, leaving the others nil for ONNX Runtime to
// allocate. On error nothing is left allocated.
func scalarOutputs(dts []graph.DType, scalar []bool) ([]ortgo.Value, error) {
	outs := make([]ortgo.Value, len(dts))
	for i, dt := range dts {
		if !scalar[i] {
			continue
		}
		v, err := newEmptyScalar(dt)
		if err != nil {
			destroyAll(outs)
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		outs[i] = v
	}
	return outs, nil
}
