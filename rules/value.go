package rules

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Kind is the static type of a value expression.
type Kind uint8

// Value kinds.
const (
	KInvalid Kind = iota
	KInt
	KFloat
	KString
	KInts
	KFloats
	KBool
	KTensor // a graph value (for shape queries)
	KRecord // a set of attributes
)

var kindNames = [...]string{"invalid", "int", "float", "string", "ints", "floats", "bool", "tensor", "record"}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// kindOfAttr maps an attribute kind to a value kind (KInvalid when the
// rules language cannot express it).
func kindOfAttr(k graph.AttrKind) Kind {
	switch k {
	case graph.AttrInt:
		return KInt
	case graph.AttrFloat:
		return KFloat
	case graph.AttrString:
		return KString
	case graph.AttrInts:
		return KInts
	case graph.AttrFloats:
		return KFloats
	}
	return KInvalid
}

// assignable reports whether a value of kind from may be used where kind
// to is expected (ints widen to floats).
func assignable(from, to Kind) bool {
	return from == to || (from == KInt && to == KFloat) || (from == KInts && to == KFloats)
}

// Value is a run-time value: an attribute value, a constant input's
// values, a bool, a graph value or a record of attributes. Unset marks an
// absent attribute or constant input that has no default.
type Value struct {
	Kind   Kind
	Unset  bool
	Int    int64
	Float  float64
	Str    string
	Ints   []int64
	Floats []float64
	Bool   bool
	Tensor *graph.Value
	Rec    graph.Attrs
	// node is the graph node a record was captured from and named the
	// attributes the pattern mentions (to compare two captures by
	// effective values).
	node  *graph.Node
	named []string
}

// Constructors.
func intVal(v int64) Value           { return Value{Kind: KInt, Int: v} }
func floatVal(v float64) Value       { return Value{Kind: KFloat, Float: v} }
func stringVal(s string) Value       { return Value{Kind: KString, Str: s} }
func intsVal(v []int64) Value        { return Value{Kind: KInts, Ints: v} }
func floatsVal(v []float64) Value    { return Value{Kind: KFloats, Floats: v} }
func boolVal(b bool) Value           { return Value{Kind: KBool, Bool: b} }
func tensorVal(t *graph.Value) Value { return Value{Kind: KTensor, Tensor: t} }
func unsetVal(k Kind) Value          { return Value{Kind: k, Unset: true} }

// asFloat returns an int or float value as float64.
func (v Value) asFloat() float64 {
	if v.Kind == KInt {
		return float64(v.Int)
	}
	return v.Float
}

// asFloats returns an ints or floats value as float64s.
func (v Value) asFloats() []float64 {
	if v.Kind == KInts {
		out := make([]float64, len(v.Ints))
		for i, x := range v.Ints {
			out[i] = float64(x)
		}
		return out
	}
	return v.Floats
}

// convert returns v as kind k (ints to floats), assuming assignable.
func (v Value) convert(k Kind) Value {
	if v.Unset || v.Kind == k {
		v.Kind = k
		return v
	}
	switch {
	case v.Kind == KInt && k == KFloat:
		return floatVal(float64(v.Int))
	case v.Kind == KInts && k == KFloats:
		return floatsVal(v.asFloats())
	}
	return v
}

// Equal reports whether two values are equal. Floats compare at float32
// precision, as attributes store them. Records compare by effective
// attribute values when both were captured from nodes.
func (v Value) Equal(w Value) bool {
	if v.Unset || w.Unset {
		return v.Unset == w.Unset
	}
	if (v.Kind == KInt || v.Kind == KFloat) && (w.Kind == KInt || w.Kind == KFloat) && v.Kind != w.Kind {
		return float32(v.asFloat()) == float32(w.asFloat())
	}
	if (v.Kind == KInts || v.Kind == KFloats) && (w.Kind == KInts || w.Kind == KFloats) && v.Kind != w.Kind {
		return floatsEqual(v.asFloats(), w.asFloats())
	}
	if v.Kind != w.Kind {
		return false
	}
	switch v.Kind {
	case KInt:
		return v.Int == w.Int
	case KFloat:
		return float32(v.Float) == float32(w.Float)
	case KString:
		return v.Str == w.Str
	case KInts:
		return slices.Equal(v.Ints, w.Ints)
	case KFloats:
		return floatsEqual(v.Floats, w.Floats)
	case KBool:
		return v.Bool == w.Bool
	case KTensor:
		return v.Tensor == w.Tensor
	case KRecord:
		return recordsEqual(v, w)
	}
	return false
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if float32(a[i]) != float32(b[i]) {
			return false
		}
	}
	return true
}

// String formats v in the syntax of the rules language.
func (v Value) String() string {
	if v.Unset {
		return "unset"
	}
	switch v.Kind {
	case KInt:
		return strconv.FormatInt(v.Int, 10)
	case KFloat:
		return formatFloat(v.Float)
	case KString:
		return strconv.Quote(v.Str)
	case KInts:
		parts := make([]string, len(v.Ints))
		for i, x := range v.Ints {
			parts[i] = strconv.FormatInt(x, 10)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case KFloats:
		parts := make([]string, len(v.Floats))
		for i, x := range v.Floats {
			parts[i] = formatFloat(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case KBool:
		return strconv.FormatBool(v.Bool)
	case KTensor:
		if v.Tensor == nil {
			return "tensor(nil)"
		}
		return fmt.Sprintf("tensor(%s %v)", v.Tensor.Name, v.Tensor.Shape)
	case KRecord:
		names := v.Rec.Names()
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n + "=" + attrToValue(v.Rec[n]).String()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.Kind.String()
}

// formatFloat prints a float so that it reads back as a float literal.
func formatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Sprint(f)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// attrToValue converts a graph attribute to a Value.
func attrToValue(a graph.Attr) Value {
	switch a.Kind {
	case graph.AttrInt:
		return intVal(a.Int)
	case graph.AttrFloat:
		return floatVal(float64(a.Float))
	case graph.AttrString:
		return stringVal(a.String)
	case graph.AttrInts:
		return intsVal(append([]int64(nil), a.Ints...))
	case graph.AttrFloats:
		f := make([]float64, len(a.Floats))
		for i, x := range a.Floats {
			f[i] = float64(x)
		}
		return floatsVal(f)
	}
	return Value{Kind: KInvalid}
}

// valueToAttr converts a value to a graph attribute of kind k.
func valueToAttr(v Value, k graph.AttrKind) (graph.Attr, error) {
	switch k {
	case graph.AttrInt:
		if v.Kind == KInt {
			return graph.IntAttr(v.Int), nil
		}
	case graph.AttrFloat:
		if v.Kind == KInt || v.Kind == KFloat {
			return graph.FloatAttr(float32(v.asFloat())), nil
		}
	case graph.AttrString:
		if v.Kind == KString {
			return graph.StringAttr(v.Str), nil
		}
	case graph.AttrInts:
		if v.Kind == KInts {
			return graph.IntsAttr(append([]int64(nil), v.Ints...)...), nil
		}
	case graph.AttrFloats:
		if v.Kind == KInts || v.Kind == KFloats {
			f := v.asFloats()
			out := make([]float32, len(f))
			for i, x := range f {
				out[i] = float32(x)
			}
			return graph.FloatsAttr(out...), nil
		}
	}
	return graph.Attr{}, fmt.Errorf("value %v (%v) cannot be an attribute of kind %v", v, v.Kind, k)
}
