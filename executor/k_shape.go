package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newAliasKernel, "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity")
	registerKernel(newDropoutKernel, "Dropout")
	registerKernel(newConstantKernel, "Constant")
	registerKernel(newShapeKernel, "Shape")
	registerKernel(newCastKernel, "Cast", "CastLike")
}

// newAliasKernel compiles the ops whose output is their input's data under
// a new shape (inferred statically).
func newAliasKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	if in.n != out.n || in.dt != out.dt {
		return nil, fmt.Errorf("output %v[%s] does not hold input %v[%s]", out.dt, graph.ShapeString(out.shape), in.dt, graph.ShapeString(in.shape))
	}
	return aliasKernel{}, nil
}

// dropoutKernel is Dropout when it has a mask output or a training_mode
// known only at run time: data is copied and the mask is all true. Training
// mode with a non-zero ratio is random and reported as an error.
type dropoutKernel struct{}

// newDropoutKernel aliases the input when Dropout is statically in
// inference mode without a mask.
func newDropoutKernel(ni *nodeInfo) (kernel, error) {
	tm := ni.in(2)
	if tm != nil && tm.value != nil {
		if on := tm.value.Data.([]bool); len(on) == 1 && on[0] {
			r := ni.in(1)
			if r != nil && r.value != nil {
				if v, _ := r.value.AsFloat64(); len(v) == 1 && v[0] != 0 {
					return nil, errTrainingDropout(v[0])
				}
			} else if r == nil {
				return nil, errTrainingDropout(0.5)
			}
		} else {
			tm = nil // statically inference mode
		}
	}
	if ni.out(1) == nil && tm == nil {
		return newAliasKernel(ni)
	}
	return dropoutKernel{}, nil
}

func errTrainingDropout(ratio float64) error {
	return fmt.Errorf("ratio %v: %w", ratio, ErrTrainingDropout)
}

func (dropoutKernel) run(rc *runCtx, ins, outs []any) error {
	if len(ins) > 2 {
		if on, ok := ins[2].([]bool); ok && len(on) == 1 && on[0] {
			ratio := 0.5
			if ins[1] != nil {
				ratio = floatAt(ins[1], 0)
			}
			if ratio != 0 {
				return errTrainingDropout(ratio)
			}
		}
	}
	copyData(outs[0], ins[0])
	if len(outs) > 1 {
		if m, ok := outs[1].([]bool); ok {
			for i := range m {
				m[i] = true
			}
		}
	}
	return nil
}

// constKernel writes a fixed tensor (Constant, Shape).
type constKernel struct{ data any }

func (k constKernel) run(rc *runCtx, ins, outs []any) error {
	copyData(outs[0], k.data)
	return nil
}

func newConstantKernel(ni *nodeInfo) (kernel, error) {
	n := ni.node
	t, err := graph.ConstantValue(n)
	if err != nil {
		return nil, err
	}
	if t.DType == graph.String {
		return nil, errDType("Constant", graph.String)
	}
	if err := checkTensorData(t); err != nil {
		return nil, fmt.Errorf("attribute value: %w", err)
	}
	out := ni.out(0)
	if t.Len() != out.n {
		return nil, fmt.Errorf("value %v does not match output shape %s", t, graph.ShapeString(out.shape))
	}
	return constKernel{data: toExec(t, out.dt).Data}, nil
}

func newShapeKernel(ni *nodeInfo) (kernel, error) {
	shape := ni.in(0).shape
	r := int64(len(shape))
	norm := func(v int64) int64 {
		if v < 0 {
			v += r
		}
		return min(max(v, 0), r)
	}
	start, end := norm(ni.node.AttrInt("start")), r
	if ni.node.HasAttr("end") {
		end = norm(ni.node.AttrInt("end"))
	}
	vals := make([]int64, 0, max(end-start, 0))
	for i := start; i < end; i++ {
		vals = append(vals, int64(shape[i]))
	}
	if out := ni.out(0); out.n != len(vals) || out.dt != graph.Int64 {
		return nil, fmt.Errorf("output %v[%s] does not match the %d requested dims", out.dt, graph.ShapeString(out.shape), len(vals))
	}
	return constKernel{data: vals}, nil
}

// castKernel is Cast between supported dtypes. In float64 precision a
// cast to float32 yields float64 (the value is not rounded to float32).
type castKernel struct{ same bool }

func newCastKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	if !SupportsDType(in.dt) || !SupportsDType(out.dt) {
		return nil, fmt.Errorf("Cast from %v to %v is not supported by the Go executor", in.v.DType, out.v.DType)
	}
	return castKernel{same: in.dt == out.dt}, nil
}

func (k castKernel) inPlace() []int {
	if k.same {
		return []int{0}
	}
	return nil
}

func (k castKernel) run(rc *runCtx, ins, outs []any) error {
	if k.same {
		copyData(outs[0], ins[0])
		return nil
	}
	castData(outs[0], ins[0])
	return nil
}
