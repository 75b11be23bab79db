package graph

import "testing"

// requiredOps is the operator set the IR must support.
var requiredOps = []string{
	"Conv", "ConvTranspose", "MatMul", "Gemm", "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log",
	"Erf", "Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Clip", "Softmax",
	"LayerNormalization", "BatchNormalization", "MaxPool", "AveragePool", "GlobalAveragePool", "Concat",
	"Split", "Slice", "Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout",
	"Constant", "Shape", "Gather", "Cast", "ReduceMean", "ReduceSum", "ReduceMax", "Resize", "Pad",
	"Expand", "Where", "Equal", "Max", "Min",
}

func TestSchemaTable(t *testing.T) {
	for _, op := range requiredOps {
		if Lookup("", op) == nil {
			t.Errorf("op %s is not registered", op)
		}
		if Lookup("ai.onnx", op) != Lookup("", op) {
			t.Errorf("op %s: ai.onnx domain does not alias the default domain", op)
		}
	}
	for _, s := range Schemas() {
		if s.Infer == nil {
			t.Errorf("%s: Infer is nil", s.Op)
		}
		if s.Doc == "" {
			t.Errorf("%s: Doc is empty", s.Op)
		}
		if s.MinOpset < 9 || s.MinOpset > 21 {
			t.Errorf("%s: MinOpset %d outside 9..21", s.Op, s.MinOpset)
		}
		if len(s.Outputs) == 0 {
			t.Errorf("%s: no outputs", s.Op)
		}
		seen := map[string]bool{}
		for _, a := range s.Attrs {
			if seen[a.Name] {
				t.Errorf("%s: attribute %s listed twice", s.Op, a.Name)
			}
			seen[a.Name] = true
			if a.Default != nil && a.Default.Kind != a.Kind {
				t.Errorf("%s: attribute %s default has kind %v, want %v", s.Op, a.Name, a.Default.Kind, a.Kind)
			}
			if a.Required && a.Default != nil {
				t.Errorf("%s: required attribute %s has a default", s.Op, a.Name)
			}
		}
		for _, ai := range s.AttrInputs {
			if ai.Input <= 0 || ai.Input >= len(s.Inputs) {
				t.Errorf("%s: AttrInput %s maps to input %d of %d", s.Op, ai.Attr, ai.Input, len(s.Inputs))
			}
			if ai.Since < 10 || ai.Since > 21 {
				t.Errorf("%s: AttrInput %s since opset %d", s.Op, ai.Attr, ai.Since)
			}
			if s.Attr(ai.Attr) != nil {
				t.Errorf("%s: %s is both an attribute and an AttrInput", s.Op, ai.Attr)
			}
		}
		if s.Commutative && s.MaxInputs() != 2 && s.MaxInputs() != -1 {
			t.Errorf("%s: commutative op with %d inputs", s.Op, s.MaxInputs())
		}
	}
}

// Spot checks of table facts other packages rely on.
func TestSchemaFacts(t *testing.T) {
	cases := []struct {
		op          string
		minOpset    int64
		commutative bool
		elementwise bool
		minIn       int
		maxIn       int
		maxOut      int
	}{
		{"Gemm", 9, false, false, 2, 3, 1},
		{"LayerNormalization", 17, false, false, 2, 3, 3},
		{"HardSwish", 14, false, true, 1, 1, 1},
		{"Resize", 10, false, false, 1, 4, 1},
		{"Add", 9, true, true, 2, 2, 1},
		{"Sub", 9, false, true, 2, 2, 1},
		{"Equal", 9, true, true, 2, 2, 1},
		{"Max", 9, true, true, 1, -1, 1},
		{"Concat", 9, false, false, 1, -1, 1},
		{"Split", 9, false, false, 1, 2, -1},
		{"Slice", 9, false, false, 3, 5, 1},
		{"BatchNormalization", 9, false, false, 5, 5, 5},
		{"MaxPool", 9, false, false, 1, 1, 2},
		{"Dropout", 9, false, false, 1, 3, 2},
		{"Constant", 9, false, false, 0, 0, 1},
	}
	for _, c := range cases {
		s := Lookup("", c.op)
		if s == nil {
			t.Errorf("%s missing", c.op)
			continue
		}
		if s.MinOpset != c.minOpset || s.Commutative != c.commutative || s.Elementwise != c.elementwise ||
			s.MinInputs() != c.minIn || s.MaxInputs() != c.maxIn || s.MaxOutputs() != c.maxOut {
			t.Errorf("%s: MinOpset %d Commutative %v Elementwise %v inputs %d..%d outputs ..%d; want %+v",
				c.op, s.MinOpset, s.Commutative, s.Elementwise, s.MinInputs(), s.MaxInputs(), s.MaxOutputs(), c)
		}
	}
	defaults := []struct {
		op, attr string
		want     Attr
	}{
		{"LeakyRelu", "alpha", FloatAttr(0.01)},
		{"HardSigmoid", "alpha", FloatAttr(0.2)},
		{"HardSigmoid", "beta", FloatAttr(0.5)},
		{"Softmax", "axis", IntAttr(-1)},
		{"LayerNormalization", "epsilon", FloatAttr(1e-5)},
		{"BatchNormalization", "epsilon", FloatAttr(1e-5)},
		{"Flatten", "axis", IntAttr(1)},
		{"ReduceMean", "keepdims", IntAttr(1)},
		{"Conv", "auto_pad", StringAttr("NOTSET")},
		{"Conv", "group", IntAttr(1)},
		{"Resize", "mode", StringAttr("nearest")},
		{"Resize", "coordinate_transformation_mode", StringAttr("half_pixel")},
		{"Pad", "mode", StringAttr("constant")},
		{"Cast", "saturate", IntAttr(1)},
	}
	for _, d := range defaults {
		n := &Node{Op: d.op}
		a, ok := n.attr(d.attr)
		if !ok || a.Format() != d.want.Format() || a.Kind != d.want.Kind {
			t.Errorf("%s.%s default %v (%v), want %v", d.op, d.attr, a.Format(), ok, d.want.Format())
		}
	}
	attrInputs := []struct {
		op, attr string
		input    int
		since    int64
		dt       DType
	}{
		{"Clip", "min", 1, 11, FromInputDType},
		{"Clip", "max", 2, 11, FromInputDType},
		{"Split", "split", 1, 13, Int64},
		{"Slice", "starts", 1, 10, Int64},
		{"Slice", "axes", 3, 10, Int64},
		{"Squeeze", "axes", 1, 13, Int64},
		{"Unsqueeze", "axes", 1, 13, Int64},
		{"Dropout", "ratio", 1, 12, Float32},
		{"ReduceSum", "axes", 1, 13, Int64},
		{"ReduceMean", "axes", 1, 18, Int64},
		{"ReduceMax", "axes", 1, 18, Int64},
		{"Pad", "pads", 1, 11, Int64},
		{"Pad", "value", 2, 11, FromInputDType},
	}
	for _, c := range attrInputs {
		found := false
		for _, ai := range Lookup("", c.op).AttrInputs {
			if ai.Attr == c.attr {
				found = true
				if ai.Input != c.input || ai.Since != c.since || ai.DType != c.dt {
					t.Errorf("%s AttrInput %s = %+v, want input %d since %d dtype %v", c.op, c.attr, ai, c.input, c.since, c.dt)
				}
			}
		}
		if !found {
			t.Errorf("%s has no AttrInput %s", c.op, c.attr)
		}
	}
}
