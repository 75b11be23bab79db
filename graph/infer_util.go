package graph

import "fmt"

// Helpers shared by the Infer functions of the op-schema table. Infer
// functions run after InferNode has checked arity and that every present
// input has a static shape, so they may index required inputs directly.

// setOut records dtype and shape of output i (a no-op for an omitted
// output) and clears any previously known value.
func setOut(n *Node, i int, dt DType, s Shape) {
	o := n.Output(i)
	if o == nil {
		return
	}
	o.DType = dt
	o.Shape = s
	o.ShapeKnown = true
	o.Known = nil
	o.KnownDims = nil
}

// setKnown records the computed value of output i.
func setKnown(n *Node, i int, t *Tensor) {
	if o := n.Output(i); o != nil && t != nil {
		o.Known = t
	}
}

// numel returns the number of elements of a static shape.
func numel(s Shape) int64 {
	p := int64(1)
	for _, d := range s {
		p *= d.Value
	}
	return p
}

// dimsOf returns a static shape as ints.
func dimsOf(s Shape) []int {
	out := make([]int, len(s))
	for i, d := range s {
		out[i] = int(d.Value)
	}
	return out
}

// shapeFromInt64 converts concrete sizes to a Shape.
func shapeFromInt64(v []int64) Shape {
	s := make(Shape, len(v))
	for i, d := range v {
		s[i] = Dim{Value: d}
	}
	return s
}

// NormAxis maps axis in [-rank, rank-1] to [0, rank-1], with an error
// naming both when it is out of range.
func NormAxis(axis int64, rank int) (int, error) {
	if a, ok := WrapIndex(axis, rank); ok {
		return a, nil
	}
	return 0, fmt.Errorf("axis %d is out of range for rank %d", axis, rank)
}

// WrapIndex maps v in [-n, n) to [0, n), counting a negative v from the
// end as ONNX does for axes and indices; ok is false when v lies outside.
func WrapIndex(v int64, n int) (i int, ok bool) {
	if v < -int64(n) || v >= int64(n) {
		return 0, false
	}
	if v < 0 {
		v += int64(n)
	}
	return int(v), true
}

// valueOf returns the constant or inferred value of v, or nil.
func valueOf(v *Value) *Tensor {
	if v == nil {
		return nil
	}
	if v.Const != nil {
		return v.Const
	}
	return v.Known
}

// present reports whether input i is given and not an empty placeholder
// tensor (exporters often pass a 0-element constant for "absent").
func present(n *Node, i int) bool {
	v := n.Input(i)
	if v == nil {
		return false
	}
	return !(v.ShapeKnown && len(v.Shape) == 1 && v.Shape[0].Value == 0)
}

// DynamicValueError reports that an output shape depends on the value of
// an input that is only known at run time (a graph input, or computed from
// one), such as Reshape's shape fed by a model input. Static shapes, and
// therefore execution and rewriting, are impossible for such a node;
// structural validation still succeeds.
type DynamicValueError struct {
	Input int
	Name  string
	Param string
}

func (e *DynamicValueError) Error() string {
	return fmt.Sprintf("input %d %q (%s) must be a constant or computable by shape inference", e.Input, e.Name, e.Param)
}

// needValue returns the value of input i, which must be known at inference
// time, or a *DynamicValueError naming the input.
func needValue(n *Node, i int) (*Tensor, error) {
	v := n.Input(i)
	t := valueOf(v)
	if t == nil {
		return nil, &DynamicValueError{Input: i, Name: v.Name, Param: inputName(n, i)}
	}
	return t, nil
}

// constInput returns the value of input i, with ok false when the input is
// absent (t is nil then, and when err is not nil).
func constInput(n *Node, i int) (t *Tensor, ok bool, err error) {
	if n.Input(i) == nil {
		return nil, false, nil
	}
	t, err = needValue(n, i)
	if err != nil {
		return nil, true, err
	}
	return t, true, nil
}

// constInts returns input i as int64s. ok is false when the input is absent.
func constInts(n *Node, i int) (vals []int64, ok bool, err error) {
	t, ok, err := constInput(n, i)
	if t == nil {
		return nil, ok, err
	}
	if t.DType != Int64 && t.DType != Int32 {
		return nil, true, fmt.Errorf("input %d %q (%s) has dtype %v, want int64", i, n.Inputs[i].Name, inputName(n, i), t.DType)
	}
	if d, ok := t.Data.([]int64); ok {
		return d, true, nil
	}
	v, err := t.AsInt64()
	return v, true, err
}

// constFloats returns input i as float64s. ok is false when absent.
func constFloats(n *Node, i int) (vals []float64, ok bool, err error) {
	t, ok, err := constInput(n, i)
	if t == nil {
		return nil, ok, err
	}
	v, err := t.AsFloat64()
	if err != nil {
		return nil, true, fmt.Errorf("input %d %q (%s): %w", i, n.Inputs[i].Name, inputName(n, i), err)
	}
	return v, true, nil
}

// inputName returns the formal name of input i from the schema.
func inputName(n *Node, i int) string {
	s := n.Schema()
	if s == nil || len(s.Inputs) == 0 {
		return "?"
	}
	if i >= len(s.Inputs) {
		return s.Inputs[len(s.Inputs)-1].Name
	}
	return s.Inputs[i].Name
}

// Type classes accepted by operators.
func isFloatType(d DType) bool   { return d.IsFloat() }
func isNumericType(d DType) bool { return d.IsFloat() || d.IsInt() }
func isIndexType(d DType) bool   { return d == Int32 || d == Int64 }

// axisInput checks input 0's dtype against class (described by want) and
// returns the input with the node's "axis" attribute normalised to its
// rank.
func axisInput(n *Node, class func(DType) bool, want string) (*Value, int, error) {
	if err := checkType(n, 0, class, want); err != nil {
		return nil, 0, err
	}
	x := n.Inputs[0]
	ax, err := NormAxis(n.AttrInt("axis"), len(x.Shape))
	return x, ax, err
}

// checkType returns an error when input i's dtype is not in class.
func checkType(n *Node, i int, class func(DType) bool, want string) error {
	v := n.Input(i)
	if v == nil || class(v.DType) {
		return nil
	}
	return fmt.Errorf("input %d %q (%s) has dtype %v, want %s", i, v.Name, inputName(n, i), v.DType, want)
}

// checkSameType returns an error when present input j's dtype differs from
// input i's.
func checkSameType(n *Node, i, j int) error {
	a, b := n.Input(i), n.Input(j)
	if a == nil || b == nil || a.DType == b.DType {
		return nil
	}
	return fmt.Errorf("input %d %q has dtype %v but input %d %q has dtype %v (mismatched input dtypes)",
		i, a.Name, a.DType, j, b.Name, b.DType)
}

// broadcast2 returns the numpy broadcast of two static shapes.
func broadcast2(a, b Shape) (Shape, error) {
	out := make(Shape, max(len(a), len(b)))
	if err := broadcastInto(out, a, b); err != nil {
		return nil, err
	}
	return out, nil
}

// broadcastInto writes the broadcast of a and b into out, whose length is
// the larger of their ranks.
func broadcastInto(out, a, b Shape) error {
	r := len(out)
	for i := 0; i < r; i++ {
		da, db := Dim{Value: 1}, Dim{Value: 1}
		if k := i - (r - len(a)); k >= 0 {
			da = a[k]
		}
		if k := i - (r - len(b)); k >= 0 {
			db = b[k]
		}
		switch {
		case da.Value == db.Value:
			out[i] = broadcastEqual(da, db)
		case db.Value == 1:
			out[i] = da
		case da.Value == 1:
			out[i] = db
		default:
			return fmt.Errorf("cannot broadcast shapes %v and %v", a, b)
		}
	}
	return nil
}

// broadcastEqual returns the broadcast of two dimensions of equal size:
// the symbolic one when one is symbolic and the other is not 1 (a fixed
// size equal to a symbol's size at this binding is the symbol's size
// whenever the model is valid), the non-1 one when the other is a fixed 1
// (a symbol bound to 1 still broadcasts against any size), else a.
func broadcastEqual(a, b Dim) Dim {
	switch {
	case a.Param == b.Param:
		return a
	case a.Param == "" && a.Value == 1:
		return b
	case b.Param == "" && b.Value == 1:
		return a
	case a.Param == "":
		return b
	}
	return a
}

// broadcastInputs broadcasts the shapes of every present input.
func broadcastInputs(n *Node) (Shape, error) {
	var out Shape
	first := true
	for _, in := range n.Inputs {
		if in == nil {
			continue
		}
		if first {
			out = in.Shape.Clone()
			first = false
			continue
		}
		s, err := broadcast2(out, in.Shape)
		if err != nil {
			return nil, err
		}
		out = s
	}
	return out, nil
}

// unidirectional reports whether shape b broadcasts to shape a.
func unidirectional(a, b Shape) bool {
	if len(b) > len(a) {
		return false
	}
	off := len(a) - len(b)
	for i, d := range b {
		if d.Value != 1 && d.Value != a[off+i].Value {
			return false
		}
	}
	return true
}

// intsAt returns s[i], or def when s is nil.
func intsAt(s []int64, i int, def int64) int64 {
	if s == nil {
		return def
	}
	return s[i]
}

func ceilDiv(a, b int64) int64 {
	if a >= 0 {
		return (a + b - 1) / b
	}
	return -((-a) / b)
}

// checkFloatOperands returns an error unless input 0 has a floating-point
// dtype and each present input of others has the same dtype.
func checkFloatOperands(n *Node, others ...int) error {
	if err := checkType(n, 0, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	for _, i := range others {
		if err := checkSameType(n, 0, i); err != nil {
			return err
		}
	}
	return nil
}
