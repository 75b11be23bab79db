package graph

import (
	"fmt"
	"sort"
)

// InputSpec describes one formal input or output of an operator.
type InputSpec struct {
	Name     string
	Optional bool
	// Variadic marks the last formal parameter as repeatable (at least one
	// occurrence unless Optional).
	Variadic bool
	// Param marks an input that determines output shapes or kernel
	// geometry (a shape, axes, pads, slice bounds, resize scales): it must be
	// a constant, or computable from constants, when a graph is compiled or
	// its shapes are inferred. Other inputs may vary from run to run.
	Param bool
}

// AttrSpec describes one attribute of an operator.
type AttrSpec struct {
	Name     string
	Kind     AttrKind
	Required bool
	// Default is used when the attribute is absent and not Required. A nil
	// Default on an optional attribute means "absent has its own meaning"
	// (for example Conv's kernel_shape, taken from the weight).
	Default *Attr
}

// AttrInput records that an attribute of older opsets became an input.
// Before opset Since the operator carried attribute Attr; from Since on the
// same information is input number Input. The IR always uses the input form;
// the codec converts in both directions.
type AttrInput struct {
	Attr  string
	Input int
	Since int64
	// DType is the element type of the input tensor (Int64 or Float32 ...);
	// FromInputDType means "same as input 0" (Clip's min/max, Pad's value).
	DType DType
}

// FromInputDType marks an AttrInput whose tensor takes input 0's dtype.
const FromInputDType DType = -1

// InferFunc computes the dtypes and static shapes of n's outputs from its
// inputs, which have known static shapes when it is called. It returns an
// error (without the node name; the caller adds it) when inputs or
// attributes are inconsistent.
type InferFunc func(n *Node) error

// OpSchema is one row of the op-schema table. It is the single description
// of an operator that import, export, validation, inference, execution and
// rewriting all read.
type OpSchema struct {
	Op     string
	Domain string // "" = default ONNX domain
	// Doc states the operator's semantics in one sentence.
	Doc     string
	Inputs  []InputSpec
	Outputs []InputSpec
	Attrs   []AttrSpec
	// AttrInputs lists attributes that later opsets turned into inputs.
	AttrInputs []AttrInput
	// MinOpset is the first default-domain opset in which this operator (in
	// the IR's form) can be exported.
	MinOpset int64
	// History states how the operator's older versions differ from the
	// IR's form.
	History History
	// Commutative marks binary ops whose two inputs may be swapped.
	Commutative bool
	// Elementwise marks ops that apply per element with numpy broadcasting.
	Elementwise bool
	// Binary is the function of a binary elementwise op (variadic ones
	// fold it over their inputs left to right): output element i is
	// ApplyBinary(Binary, a[i], b[i]) of the inputs broadcast to the
	// output's shape, 1 and 0 standing for true and false. Known values
	// fold with it during inference when the row's Infer does. BinNone
	// for other ops.
	Binary BinaryOp
	// Unary is the function of a one-input elementwise op, built from a
	// node's attributes and evaluated in float64. Nil for other ops.
	Unary UnaryFunc
	// Movement marks ops that only move, select or reinterpret data (no
	// arithmetic): they cost no FLOPs.
	Movement bool
	// Window marks ops with a sliding window whose strides, dilations,
	// pads and kernel_shape default from the rank of input 0.
	Window bool
	// NonNegative marks ops whose outputs are never negative for finite
	// inputs (NaN propagates): a value they produce satisfies a rule's
	// nonneg condition.
	NonNegative bool
	// Exact is how exactly rule verification can evaluate the op.
	Exact Exactness
	// WeightDerived lists attributes that the weight input determines
	// (Conv's kernel_shape is the weight's spatial shape): when absent
	// they default from it, and a rewrite that changes the weights must
	// not carry the old value over.
	WeightDerived []string
	// Work states the op's FLOPs (NodeWork, FLOPs); nil exactly for the
	// Movement ops, which are free.
	Work  WorkFunc
	Infer InferFunc
}

// Exactness classes an op for exact rule verification, which runs a rule's
// two sides in rational arithmetic when every op of both allows it.
type Exactness uint8

// The exactness classes.
const (
	// Inexact ops are only compared within a tolerance.
	Inexact Exactness = iota
	// ExactArith ops are polynomial or piecewise linear in their inputs,
	// so that rational arithmetic evaluates them exactly.
	ExactArith
	// ExactMove ops only move or copy elements (or insert Pad's
	// constants): running them on element numbers tells exactly where
	// each output element comes from.
	ExactMove
)

// ParamInputs returns the positions of s's Param inputs.
func (s *OpSchema) ParamInputs() []int {
	var out []int
	for i, p := range s.Inputs {
		if p.Param {
			out = append(out, i)
		}
	}
	return out
}

// ParamInputs returns the positions of the Param inputs of default-domain
// op, or nil for an op outside the table.
func ParamInputs(op string) []int {
	if s := Lookup("", op); s != nil {
		return s.ParamInputs()
	}
	return nil
}

// MinInputs returns the number of leading non-optional inputs.
func (s *OpSchema) MinInputs() int { return minCount(s.Inputs) }

// MaxInputs returns the largest number of inputs, or -1 when variadic.
func (s *OpSchema) MaxInputs() int { return maxCount(s.Inputs) }

// MinOutputs returns the number of leading non-optional outputs.
func (s *OpSchema) MinOutputs() int { return minCount(s.Outputs) }

// MaxOutputs returns the largest number of outputs, or -1 when variadic.
func (s *OpSchema) MaxOutputs() int { return maxCount(s.Outputs) }

func minCount(specs []InputSpec) int {
	n := 0
	for _, p := range specs {
		if p.Optional {
			break
		}
		n++
	}
	return n
}

func maxCount(specs []InputSpec) int {
	if len(specs) > 0 && specs[len(specs)-1].Variadic {
		return -1
	}
	return len(specs)
}

// Attr returns the spec of attribute name, or nil.
func (s *OpSchema) Attr(name string) *AttrSpec {
	for i := range s.Attrs {
		if s.Attrs[i].Name == name {
			return &s.Attrs[i]
		}
	}
	return nil
}

var schemaTable = map[string]*OpSchema{}

func schemaKey(domain, op string) string {
	if domain == "ai.onnx" {
		domain = ""
	}
	return domain + "::" + op
}

// register adds s to the op-schema table. It panics on a duplicate: the
// table is built from package-level data at init time (opTables).
func register(s *OpSchema) {
	k := schemaKey(s.Domain, s.Op)
	if _, dup := schemaTable[k]; dup {
		panic(fmt.Sprintf("graph: op %s registered twice", s.Op))
	}
	schemaTable[k] = s
}

// Lookup returns the schema of op in domain ("" = default ONNX domain), or
// nil when the op is not supported (and is therefore imported as opaque).
func Lookup(domain, op string) *OpSchema {
	return schemaTable[schemaKey(domain, op)]
}

// Schemas returns every registered schema sorted by domain and op name.
func Schemas() []*OpSchema {
	out := make([]*OpSchema, 0, len(schemaTable))
	for _, s := range schemaTable {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Domain != out[j].Domain {
			return out[i].Domain < out[j].Domain
		}
		return out[i].Op < out[j].Op
	})
	return out
}

// attr returns the value of attribute name on n, falling back to the
// schema default. The bool is false when absent with no default.
func (n *Node) attr(name string) (Attr, bool) {
	if a, ok := n.Attrs[name]; ok {
		return a, true
	}
	s := n.Schema()
	if s == nil {
		return Attr{}, false
	}
	spec := s.Attr(name)
	if spec == nil {
		panic(fmt.Sprintf("graph: op %s has no attribute %q in its schema", n.Op, name))
	}
	if spec.Default == nil {
		return Attr{}, false
	}
	return *spec.Default, true
}

// HasAttr reports whether the attribute is set on n or has a schema default.
func (n *Node) HasAttr(name string) bool {
	_, ok := n.attr(name)
	return ok
}

// AttrInt returns an int attribute (or its schema default, or 0).
func (n *Node) AttrInt(name string) int64 { a, _ := n.attr(name); return a.Int }

// AttrFloat returns a float attribute (or its schema default, or 0).
func (n *Node) AttrFloat(name string) float32 { a, _ := n.attr(name); return a.Float }

// AttrString returns a string attribute (or its schema default, or "").
func (n *Node) AttrString(name string) string { a, _ := n.attr(name); return a.String }

// AttrInts returns an ints attribute (or its schema default, or nil).
func (n *Node) AttrInts(name string) []int64 { a, _ := n.attr(name); return a.Ints }

// AttrFloats returns a floats attribute (or its schema default, or nil).
func (n *Node) AttrFloats(name string) []float32 { a, _ := n.attr(name); return a.Floats }

// AttrTensor returns a tensor attribute, or nil.
func (n *Node) AttrTensor(name string) *Tensor { a, _ := n.attr(name); return a.Tensor }

// Helpers for writing schema defaults in the table.
func defInt(v int64) *Attr     { a := IntAttr(v); return &a }
func defFloat(v float32) *Attr { a := FloatAttr(v); return &a }
func defString(v string) *Attr { a := StringAttr(v); return &a }
func defInts(v ...int64) *Attr { a := IntsAttr(v...); return &a }
