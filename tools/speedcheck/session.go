package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	ortgo "github.com/yalue/onnxruntime_go"
)

// model is one file loaded in ONNX Runtime.
type model struct {
	path    string
	inputs  []ortgo.InputOutputInfo
	outputs int
	s       *ortgo.DynamicAdvancedSession
}

// open loads the file at path with threads intra-op threads, one
// inter-op thread, all graph optimisations and no spinning.
func open(path string, threads int) (*model, error) {
	ins, outs, err := ortgo.GetInputOutputInfo(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	opts, err := ortgo.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	settings := []error{
		opts.SetIntraOpNumThreads(threads),
		opts.SetInterOpNumThreads(1),
		opts.SetGraphOptimizationLevel(ortgo.GraphOptimizationLevelEnableAll),
		opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"),
		opts.AddSessionConfigEntry("session.inter_op.allow_spinning", "0"),
	}
	if err := errors.Join(settings...); err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	inNames, outNames := names(ins), names(outs)
	s, err := ortgo.NewDynamicAdvancedSession(path, inNames, outNames, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &model{path: path, inputs: ins, outputs: len(outs), s: s}, nil
}

func (m *model) close() { m.s.Destroy() }

func names(infos []ortgo.InputOutputInfo) []string {
	out := make([]string, len(infos))
	for i, v := range infos {
		out[i] = v.Name
	}
	return out
}

// sameInputs checks that b takes the inputs a takes, by name and type.
func sameInputs(a, b *model) error {
	if len(a.inputs) != len(b.inputs) {
		return fmt.Errorf("%s has %d inputs, %s %d", a.path, len(a.inputs), b.path, len(b.inputs))
	}
	for i, v := range a.inputs {
		if w := b.inputs[i]; w.Name != v.Name || w.DataType != v.DataType {
			return fmt.Errorf("input %d: %s has %q (%v), %s has %q (%v)", i, a.path, v.Name, v.DataType, b.path, w.Name, w.DataType)
		}
	}
	return nil
}

// runOnce runs m on in, letting ONNX Runtime allocate the outputs, which
// are then released, and returns the wall time of the run.
func (m *model) runOnce(in []ortgo.Value) (time.Duration, error) {
	outs := make([]ortgo.Value, m.outputs)
	t0 := time.Now()
	err := m.s.Run(in, outs)
	d := time.Since(t0)
	destroy(outs)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", m.path, err)
	}
	return d, nil
}

func destroy(vs []ortgo.Value) {
	for _, v := range vs {
		if v != nil {
			v.Destroy()
		}
	}
}

// randomInputs makes a tensor for each input: symbolic dimensions from
// shapes (by input name), else 1.
func randomInputs(infos []ortgo.InputOutputInfo, shapes shapeFlags, seed uint64) ([]ortgo.Value, error) {
	r := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
	var vals []ortgo.Value
	for _, in := range infos {
		dims := slices.Clone([]int64(in.Dimensions))
		if bound, ok := shapes[in.Name]; ok {
			if len(bound) != len(dims) {
				destroy(vals)
				return nil, fmt.Errorf("input %q has %d dimensions, -shape gives %d", in.Name, len(dims), len(bound))
			}
			dims = bound
		}
		for i, d := range dims {
			if d < 0 {
				dims[i] = 1
			}
		}
		v, err := randomTensor(r, in.DataType, dims)
		if err != nil {
			destroy(vals)
			return nil, fmt.Errorf("input %q: %w", in.Name, err)
		}
		vals = append(vals, v)
	}
	return vals, nil
}

func randomTensor(r *rand.Rand, dt ortgo.TensorElementDataType, dims []int64) (ortgo.Value, error) {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	switch dt {
	case ortgo.TensorElementDataTypeFloat:
		return tensor(dims, fill(n, func() float32 { return float32(2*r.Float64() - 1) }))
	case ortgo.TensorElementDataTypeDouble:
		return tensor(dims, fill(n, func() float64 { return 2*r.Float64() - 1 }))
	case ortgo.TensorElementDataTypeInt64:
		return tensor(dims, fill(n, func() int64 { return int64(r.IntN(2)) }))
	case ortgo.TensorElementDataTypeInt32:
		return tensor(dims, fill(n, func() int32 { return int32(r.IntN(2)) }))
	case ortgo.TensorElementDataTypeBool:
		return tensor(dims, fill(n, func() bool { return r.IntN(2) == 1 }))
	}
	return nil, fmt.Errorf("no random data for element type %v", dt)
}

func fill[T any](n int, next func() T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = next()
	}
	return out
}

// tensor makes a tensor of data with dims, a scalar when dims is empty.
func tensor[T ortgo.TensorData](dims []int64, data []T) (ortgo.Value, error) {
	if len(dims) == 0 {
		return ortgo.NewScalar(data[0])
	}
	return ortgo.NewTensor(ortgo.NewShape(dims...), data)
}
