package graph

import (
	"fmt"
	"sort"
)

// AttrKind is the kind of an attribute value. The numeric values equal
// ONNX's AttributeProto.AttributeType.
type AttrKind int32

// Attribute kinds, numbered as in ONNX. Graph-valued kinds occur only in
// opaque nodes, which keep their ONNX encoding verbatim.
const (
	AttrUndefined AttrKind = 0
	AttrFloat     AttrKind = 1
	AttrInt       AttrKind = 2
	AttrString    AttrKind = 3
	AttrTensor    AttrKind = 4
	AttrGraph     AttrKind = 5
	AttrFloats    AttrKind = 6
	AttrInts      AttrKind = 7
	AttrStrings   AttrKind = 8
	AttrTensors   AttrKind = 9
	AttrGraphs    AttrKind = 10
)

var attrKindNames = map[AttrKind]string{
	AttrUndefined: "undefined", AttrFloat: "float", AttrInt: "int", AttrString: "string",
	AttrTensor: "tensor", AttrGraph: "graph", AttrFloats: "floats", AttrInts: "ints",
	AttrStrings: "strings", AttrTensors: "tensors", AttrGraphs: "graphs",
}

// String returns the kind's name, e.g. "ints".
func (k AttrKind) String() string {
	if s, ok := attrKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("attrkind(%d)", int32(k))
}

// Attr is one attribute value; only the field matching Kind is meaningful.
type Attr struct {
	Kind    AttrKind
	Float   float32
	Int     int64
	String  string
	Tensor  *Tensor
	Floats  []float32
	Ints    []int64
	Strings []string
	Tensors []*Tensor
}

// Constructors for attribute values.
func FloatAttr(v float32) Attr     { return Attr{Kind: AttrFloat, Float: v} }
func IntAttr(v int64) Attr         { return Attr{Kind: AttrInt, Int: v} }
func StringAttr(v string) Attr     { return Attr{Kind: AttrString, String: v} }
func TensorAttr(t *Tensor) Attr    { return Attr{Kind: AttrTensor, Tensor: t} }
func FloatsAttr(v ...float32) Attr { return Attr{Kind: AttrFloats, Floats: v} }
func IntsAttr(v ...int64) Attr     { return Attr{Kind: AttrInts, Ints: v} }
func StringsAttr(v ...string) Attr { return Attr{Kind: AttrStrings, Strings: v} }

// Clone returns a deep copy of a.
func (a Attr) Clone() Attr {
	b := a
	b.Floats = append([]float32(nil), a.Floats...)
	b.Ints = append([]int64(nil), a.Ints...)
	b.Strings = append([]string(nil), a.Strings...)
	b.Tensor = a.Tensor.Clone()
	if a.Tensors != nil {
		b.Tensors = make([]*Tensor, len(a.Tensors))
		for i, t := range a.Tensors {
			b.Tensors[i] = t.Clone()
		}
	}
	return b
}

// Format returns a compact human-readable rendering of the value.
func (a Attr) Format() string {
	switch a.Kind {
	case AttrFloat:
		return fmt.Sprint(a.Float)
	case AttrInt:
		return fmt.Sprint(a.Int)
	case AttrString:
		return fmt.Sprintf("%q", a.String)
	case AttrTensor:
		return a.Tensor.String()
	case AttrFloats:
		return fmt.Sprint(a.Floats)
	case AttrInts:
		return fmt.Sprint(a.Ints)
	case AttrStrings:
		return fmt.Sprintf("%q", a.Strings)
	case AttrTensors:
		return fmt.Sprintf("%d tensors", len(a.Tensors))
	}
	return a.Kind.String()
}

// Attrs maps attribute names to values.
type Attrs map[string]Attr

// Clone returns a deep copy of as.
func (as Attrs) Clone() Attrs {
	if as == nil {
		return nil
	}
	out := make(Attrs, len(as))
	for k, v := range as {
		out[k] = v.Clone()
	}
	return out
}

// Names returns the attribute names in sorted order.
func (as Attrs) Names() []string {
	names := make([]string, 0, len(as))
	for k := range as {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
