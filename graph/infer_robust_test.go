package graph

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestInferNeverPanics feeds every op random shapes, dtypes, constant
// inputs and attribute values; inference must return an error or a result,
// never panic.
func TestInferNeverPanics(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	dtypes := []DType{Float32, Float32, Int64, Int64, Bool, Int32}
	randShape := func() []int {
		s := make([]int, rng.Intn(5))
		for i := range s {
			s[i] = rng.Intn(5)
		}
		return s
	}
	randInts := func() []int64 {
		v := make([]int64, rng.Intn(5))
		for i := range v {
			v[i] = int64(rng.Intn(9) - 4)
		}
		return v
	}
	randValue := func(i int) *Value {
		v := &Value{Name: fmt.Sprint("v", i)}
		switch rng.Intn(4) {
		case 0:
			t := FromInt64(randInts())
			t.Shape = []int{len(t.Int64s())}
			v.Const = t
			v.SetStatic(Int64, t.Shape)
		case 1:
			s := randShape()
			n := NumElements(s)
			if n <= maxKnownElems {
				d := make([]float32, n)
				v.Const = FromFloat32(d, s...)
				v.SetStatic(Float32, s)
				break
			}
			fallthrough
		default:
			v.SetStatic(dtypes[rng.Intn(len(dtypes))], randShape())
		}
		return v
	}
	randAttr := func(k AttrKind) Attr {
		switch k {
		case AttrInt:
			return IntAttr(int64(rng.Intn(7) - 3))
		case AttrFloat:
			return FloatAttr(rng.Float32())
		case AttrInts:
			return IntsAttr(randInts()...)
		case AttrFloats:
			return FloatsAttr(rng.Float32(), rng.Float32())
		case AttrString:
			return StringAttr([]string{"", "NOTSET", "SAME_UPPER", "VALID", "constant", "linear", "not_larger"}[rng.Intn(7)])
		case AttrStrings:
			return StringsAttr("a")
		case AttrTensor:
			return TensorAttr(FromInt64(randInts()))
		}
		return Attr{}
	}
	for _, s := range Schemas() {
		for trial := 0; trial < 400; trial++ {
			n := &Node{Name: "r", Op: s.Op, Attrs: Attrs{}}
			for i := 0; i < rng.Intn(6); i++ {
				if rng.Intn(6) == 0 {
					n.Inputs = append(n.Inputs, nil)
					continue
				}
				n.Inputs = append(n.Inputs, randValue(i))
			}
			for i := 0; i < 1+rng.Intn(4); i++ {
				n.Outputs = append(n.Outputs, &Value{Name: fmt.Sprint("o", i)})
			}
			for _, a := range s.Attrs {
				if a.Required || rng.Intn(2) == 0 {
					n.Attrs[a.Name] = randAttr(a.Kind)
				}
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s trial %d panicked: %v\nnode inputs %s attrs %v", s.Op, trial, r, describeInputs(n), n.Attrs)
					}
				}()
				_ = InferNode(n)
			}()
		}
	}
}

func describeInputs(n *Node) string {
	s := ""
	for _, in := range n.Inputs {
		if in == nil {
			s += " <nil>"
			continue
		}
		s += fmt.Sprintf(" %v[%v]", in.DType, in.Shape)
		if in.Const != nil {
			s += fmt.Sprintf("=%v", in.Const.Data)
		}
	}
	return s
}
