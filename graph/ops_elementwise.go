package graph

import "fmt"

// Elementwise operators: binary arithmetic with numpy broadcasting,
// Equal, Pow, variadic Max/Min, Where and Clip; the row builders of
// elementwise operators (ops_math.go holds those of one input).

var (
	inX  = []InputSpec{{Name: "X"}}
	outY = []InputSpec{{Name: "Y"}}
	inAB = []InputSpec{{Name: "A"}, {Name: "B"}}
	outC = []InputSpec{{Name: "C"}}
)

// elementwiseOps are the rows of this file.
var elementwiseOps = []OpSchema{
	binaryRow("Add", "C = A + B elementwise with numpy broadcasting.", BinAdd, true).exact(ExactArith),
	binaryRow("Sub", "C = A - B elementwise with numpy broadcasting.", BinSub, false).exact(ExactArith),
	binaryRow("Mul", "C = A * B elementwise with numpy broadcasting.", BinMul, true).exact(ExactArith),
	binaryRow("Div", "C = A / B elementwise with numpy broadcasting (integer division truncates).", BinDiv, false),
	{
		Op: "Equal", History: opset1Broadcast, Doc: "C = (A == B) elementwise with numpy broadcasting; C is bool.",
		Inputs: inAB, Outputs: outC, MinOpset: 9, Commutative: true, Elementwise: true,
		Binary: BinEqual, Work: workPerOutput, Infer: inferBinary(true),
	},
	{
		Op: "Pow", History: opset1Broadcast, Doc: "Z = X ^ Y elementwise with numpy broadcasting; Z has X's dtype.",
		Inputs: []InputSpec{{Name: "X"}, {Name: "Y"}}, Outputs: []InputSpec{{Name: "Z"}},
		MinOpset: 9, Elementwise: true, Binary: BinPow, Work: workPerOutput, Infer: inferPow,
	},
	variadicRow("Max", "Elementwise maximum of all inputs with numpy broadcasting.", BinMax, inferVariadic).exact(ExactArith),
	variadicRow("Min", "Elementwise minimum of all inputs with numpy broadcasting.", BinMin, inferVariadic).exact(ExactArith),
	{
		Op: "Where", Doc: "output = X where condition is true, else Y, elementwise with numpy broadcasting.",
		Inputs:   []InputSpec{{Name: "condition"}, {Name: "X"}, {Name: "Y"}},
		Outputs:  []InputSpec{{Name: "output"}},
		MinOpset: 9, Elementwise: true, Work: workPerOutput, Infer: inferWhere,
	},
	{
		Op: "Clip", History: opset1Consumed, Doc: "output = min(max(input, min), max) elementwise; absent bounds do not clip.",
		Inputs:  []InputSpec{{Name: "input"}, {Name: "min", Optional: true}, {Name: "max", Optional: true}},
		Outputs: []InputSpec{{Name: "output"}},
		AttrInputs: []AttrInput{
			{Attr: "min", Input: 1, Since: 11, DType: FromInputDType},
			{Attr: "max", Input: 2, Since: 11, DType: FromInputDType},
		},
		MinOpset: 9, Elementwise: true, Work: workPerOutput, Infer: inferClip,
	},
}

// unaryRow is the row of an elementwise op f of one input, numeric or
// (with float set) floating-point.
func unaryRow(op, doc string, min int64, float bool, f UnaryFunc, attrs ...AttrSpec) OpSchema {
	class, want := isNumericType, "a numeric type"
	if float {
		class, want = isFloatType, "a floating-point type"
	}
	return OpSchema{
		Op: op, Doc: doc, Inputs: inX, Outputs: outY, Attrs: attrs,
		MinOpset: min, Elementwise: true, Unary: f, Work: workPerOutput, Infer: inferUnary(class, want),
	}
}

// binaryRow is the row of an arithmetic op bin of two broadcast inputs, of
// opset 1 (consumed_inputs until opset 6, legacy broadcasting until 7).
func binaryRow(op, doc string, bin BinaryOp, comm bool) OpSchema {
	return OpSchema{
		Op: op, Doc: doc, Inputs: inAB, Outputs: outC,
		History:  History{First: 1, ConsumedBefore: 6, LegacyBroadcast: true},
		MinOpset: 9, Commutative: comm, Elementwise: true,
		Binary: bin, Work: workPerOutput, Infer: inferBinary(false),
	}
}

// variadicRow is the row of a commutative elementwise op of one or more
// broadcast inputs that folds bin over them, of opset 1 (consumed_inputs
// until opset 6; inputs of one shape until opset 8).
func variadicRow(op, doc string, bin BinaryOp, infer InferFunc) OpSchema {
	return OpSchema{
		Op: op, Doc: doc,
		History:  History{First: 1, ConsumedBefore: 6, SameShapeBefore: 8},
		Inputs:   []InputSpec{{Name: "data_0", Variadic: true}},
		Outputs:  []InputSpec{{Name: op}},
		MinOpset: 9, Commutative: true, Elementwise: true,
		Binary: bin, Work: workPerOutput, Infer: infer,
	}
}

// inferUnary: output has the input's dtype and shape.
func inferUnary(class func(DType) bool, want string) InferFunc {
	return func(n *Node) error {
		if err := checkType(n, 0, class, want); err != nil {
			return err
		}
		x := n.Inputs[0]
		setOut(n, 0, x.DType, x.Shape.Clone())
		return nil
	}
}

// broadcastPair checks that inputs 0 and 1 have one dtype of class
// (described by want) and returns their broadcast shape.
func broadcastPair(n *Node, class func(DType) bool, want string) (Shape, error) {
	if err := checkType(n, 0, class, want); err != nil {
		return nil, err
	}
	if err := checkSameType(n, 0, 1); err != nil {
		return nil, err
	}
	return broadcast2(n.Inputs[0].Shape, n.Inputs[1].Shape)
}

// inferBinary: same-dtype numeric inputs, broadcast shapes; known values
// fold with the row's Binary function.
func inferBinary(boolOut bool) InferFunc {
	return func(n *Node) error {
		class, want := isNumericType, "a numeric type"
		if boolOut {
			class, want = func(d DType) bool { return isNumericType(d) || d == Bool }, "a numeric or bool type"
		}
		s, err := broadcastPair(n, class, want)
		if err != nil {
			return err
		}
		dt := n.Inputs[0].DType
		if boolOut {
			dt = Bool
		}
		setFolded(n, dt, s)
		return nil
	}
}

func inferPow(n *Node) error {
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	if err := checkType(n, 1, isNumericType, "a numeric type"); err != nil {
		return err
	}
	s, err := broadcast2(n.Inputs[0].Shape, n.Inputs[1].Shape)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, s)
	return nil
}

// inferVariadic: same-dtype numeric inputs, broadcast shapes; known
// values fold with the row's Binary function.
func inferVariadic(n *Node) error {
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	for i := 1; i < len(n.Inputs); i++ {
		if err := checkSameType(n, 0, i); err != nil {
			return err
		}
	}
	s, err := broadcastInputs(n)
	if err != nil {
		return err
	}
	setFolded(n, n.Inputs[0].DType, s)
	return nil
}

func inferWhere(n *Node) error {
	if c := n.Inputs[0]; c.DType != Bool {
		return fmt.Errorf("input 0 %q (condition) has dtype %v, want bool", c.Name, c.DType)
	}
	if err := checkSameType(n, 1, 2); err != nil {
		return err
	}
	s, err := broadcastInputs(n)
	if err != nil {
		return err
	}
	dt := n.Inputs[1].DType
	setOut(n, 0, dt, s)
	if allKnown(n) && smallOut(s) {
		ts := knownInputs(n)
		if ts == nil {
			return nil
		}
		out := dimsOf(s)
		cond := ts[0].Data.([]bool)
		ci := bcastIndex(out, ts[0].Shape)
		xi := bcastIndex(out, ts[1].Shape)
		yi := bcastIndex(out, ts[2].Shape)
		nx := ts[1].Len()
		idx := make([]int, len(ci))
		for i := range idx {
			if cond[ci[i]] {
				idx[i] = xi[i]
			} else {
				idx[i] = nx + yi[i]
			}
		}
		if data := concatData(ts[1:]); data != nil {
			setKnown(n, 0, takeElems(dt, data, idx, s))
		}
	}
	return nil
}

func inferClip(n *Node) error {
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	for i := 1; i <= 2; i++ {
		if err := checkSameType(n, 0, i); err != nil {
			return err
		}
		if b := n.Input(i); b != nil && numel(b.Shape) != 1 {
			return fmt.Errorf("input %d %q (%s) must be a scalar, has shape %v", i, b.Name, inputName(n, i), b.Shape)
		}
	}
	x := n.Inputs[0]
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

// setFolded sets output 0 of n to dtype dt and shape s, with its value
// folded by the row's Binary function (if any) when every input is known
// and s is small.
func setFolded(n *Node, dt DType, s Shape) {
	setOut(n, 0, dt, s)
	fold := n.Schema().Binary
	if fold != BinNone && allKnown(n) && smallOut(s) {
		if ts := knownInputs(n); ts != nil {
			setKnown(n, 0, foldElementwise(fold, dt, s, ts))
		}
	}
}
