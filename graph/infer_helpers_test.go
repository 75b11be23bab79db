package graph

import (
	"strings"
	"testing"
)

// arg describes one node input in an inference test: a value of the given
// dtype and shape, a constant, or an omitted optional input.
type arg struct {
	dt     DType
	shape  []int
	val    *Tensor
	absent bool
}

func f32(shape ...int) arg { return arg{dt: Float32, shape: shape} }
func f64(shape ...int) arg { return arg{dt: Float64, shape: shape} }
func i32(shape ...int) arg { return arg{dt: Int32, shape: shape} }
func i64(shape ...int) arg { return arg{dt: Int64, shape: shape} }
func boolean(shape ...int) arg {
	return arg{dt: Bool, shape: shape}
}

// ints is a 1-D int64 constant.
func ints(v ...int64) arg {
	return arg{val: FromInt64(v, len(v))}
}

// floats is a 1-D float32 constant.
func floats(v ...float32) arg {
	return arg{val: FromFloat32(v, len(v))}
}

// scalarI64 is a rank-0 int64 constant.
func scalarI64(v int64) arg { return arg{val: FromInt64([]int64{v})} }

var absent = arg{absent: true}

func (a arg) value(i int) *Value {
	if a.absent {
		return nil
	}
	v := &Value{Name: "in" + string(rune('0'+i))}
	if a.val != nil {
		v.Const = a.val
		v.SetStatic(a.val.DType, a.val.Shape)
		return v
	}
	v.SetStatic(a.dt, a.shape)
	return v
}

// inferCase is one row of an inference table.
type inferCase struct {
	name  string
	op    string
	args  []arg
	attrs Attrs
	nOut  int      // number of outputs; 0 means 1
	want  []string // output shapes ("2x3", "scalar"); "-" skips an omitted output
	dt    []DType  // expected output dtypes (optional)
	err   string   // expected error substring; "" means success
}

// makeNode builds the node of a case with fresh values.
func (c inferCase) makeNode() *Node {
	n := &Node{Name: c.name, Op: c.op, Attrs: c.attrs}
	for i, a := range c.args {
		n.Inputs = append(n.Inputs, a.value(i))
	}
	k := c.nOut
	if k == 0 {
		k = 1
	}
	for i := 0; i < k; i++ {
		if i < len(c.want) && c.want[i] == "-" {
			n.Outputs = append(n.Outputs, nil)
			continue
		}
		n.Outputs = append(n.Outputs, &Value{Name: "out" + string(rune('0'+i))})
	}
	return n
}

func runInferCases(t *testing.T, cases []inferCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.op+"/"+c.name, func(t *testing.T) {
			n := c.makeNode()
			err := InferNode(n)
			if c.err != "" {
				if err == nil {
					t.Fatalf("want error containing %q, got shapes %v", c.err, outShapes(n))
				}
				if !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %q does not contain %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := outShapes(n)
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("shapes %v, want %v", got, c.want)
			}
			for i, dt := range c.dt {
				if o := n.Outputs[i]; o != nil && o.DType != dt {
					t.Errorf("output %d dtype %v, want %v", i, o.DType, dt)
				}
			}
		})
	}
}

func outShapes(n *Node) []string {
	var s []string
	for _, o := range n.Outputs {
		if o == nil {
			s = append(s, "-")
			continue
		}
		if !o.ShapeKnown {
			s = append(s, "unknown")
			continue
		}
		s = append(s, o.Shape.String())
	}
	return s
}
