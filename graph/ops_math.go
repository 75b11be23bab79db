package graph

import (
	"fmt"
	"math"
)

// Elementwise operators of one input (activations, sign and rounding,
// trigonometry, predicates), logic, ordered comparison, Mod, PRelu and the
// variadic Sum and Mean.

// mathOps are the rows of this file.
var mathOps = []OpSchema{
	signedRow("Neg", "Y = -X elementwise.", neg).history(opset1Consumed).exact(ExactArith),
	signedRow("Abs", "Y = |X| elementwise.", math.Abs).history(opset1Consumed).nonNegative(),
	signedRow("Sign", "Y = -1, 0 or 1 by the sign of X, elementwise (NaN stays NaN).", signOf),

	// Activations.
	unaryRow("Relu", "Y = max(X, 0) elementwise.", 9, false, unaryOf(relu)).history(opset1Consumed).nonNegative().exact(ExactArith),
	unaryRow("LeakyRelu", "Y = X if X >= 0 else alpha*X, elementwise.", 9, true, leakyRelu,
		floatAttr("alpha", 0.01)).history(opset1Consumed),
	unaryRow("Sigmoid", "Y = 1/(1+exp(-X)) elementwise.", 9, true, unaryOf(Sigmoid[float64])).history(opset1Consumed).nonNegative(),
	unaryRow("HardSigmoid", "Y = max(0, min(1, alpha*X + beta)) elementwise.", 9, true, hardSigmoid,
		floatAttr("alpha", 0.2), floatAttr("beta", 0.5)).history(opset1Consumed),
	unaryRow("HardSwish", "Y = X * max(0, min(1, X/6 + 1/2)) elementwise.", 14, true, unaryOf(hardSwish)),
	unaryRow("Elu", "Y = X if X >= 0 else alpha*(exp(X)-1), elementwise.", 9, true, elu,
		floatAttr("alpha", 1)).history(opset1Consumed),
	unaryRow("Celu", "Y = max(0, X) + min(0, alpha*(exp(X/alpha)-1)) elementwise.", 12, true, celu,
		floatAttr("alpha", 1)),
	unaryRow("Selu", "Y = gamma*X if X > 0 else gamma*alpha*(exp(X)-1), elementwise.", 9, true, selu,
		floatAttr("alpha", 1.67326319217681884765625), floatAttr("gamma", 1.05070102214813232421875)).history(opset1Consumed),
	unaryRow("ThresholdedRelu", "Y = X if X > alpha else 0, elementwise.", 10, true, thresholdedRelu,
		floatAttr("alpha", 1)),
	unaryRow("Shrink", "Y = X-bias if X > lambd, X+bias if X < -lambd, else 0, elementwise.", 9, true, shrink,
		floatAttr("bias", 0), floatAttr("lambd", 0.5)),
	unaryRow("Softplus", "Y = ln(1 + exp(X)) elementwise.", 9, true, unaryOf(softplus)).history(opset1),
	unaryRow("Softsign", "Y = X / (1 + |X|) elementwise.", 9, true, unaryOf(softsign)).history(opset1),
	unaryRow("Gelu", "Y = X*Phi(X) with Phi the standard normal CDF (approximate=\"tanh\": its tanh approximation), elementwise.", 20, true, gelu,
		stringAttr("approximate", "none")),
	unaryRow("Mish", "Y = X * tanh(ln(1 + exp(X))) elementwise.", 18, true, unaryOf(mish)),

	// Powers, exponentials and the error function.
	unaryRow("Sqrt", "Y = sqrt(X) elementwise.", 9, true, unaryOf(math.Sqrt)).history(opset1Consumed).nonNegative(),
	unaryRow("Reciprocal", "Y = 1/X elementwise.", 9, true, unaryOf(reciprocal)).history(opset1Consumed),
	unaryRow("Exp", "Y = exp(X) elementwise.", 9, true, unaryOf(math.Exp)).history(opset1Consumed).nonNegative(),
	unaryRow("Log", "Y = ln(X) elementwise.", 9, true, unaryOf(math.Log)).history(opset1Consumed),
	unaryRow("Erf", "Y = erf(X), the Gauss error function, elementwise.", 9, false, unaryOf(math.Erf)),

	// Rounding.
	unaryRow("Floor", "Y = floor(X) elementwise.", 9, true, unaryOf(math.Floor)).history(opset1Consumed),
	unaryRow("Ceil", "Y = ceil(X) elementwise.", 9, true, unaryOf(math.Ceil)).history(opset1Consumed),
	unaryRow("Round", "Y = X rounded to the nearest integer, halves to even, elementwise.", 11, true, unaryOf(math.RoundToEven)),

	// Trigonometric functions.
	unaryRow("Sin", "Y = sin(X) elementwise.", 9, true, unaryOf(math.Sin)).history(opset7),
	unaryRow("Cos", "Y = cos(X) elementwise.", 9, true, unaryOf(math.Cos)).history(opset7),
	unaryRow("Tan", "Y = tan(X) elementwise.", 9, true, unaryOf(math.Tan)).history(opset7),
	unaryRow("Asin", "Y = asin(X) elementwise.", 9, true, unaryOf(math.Asin)).history(opset7),
	unaryRow("Acos", "Y = acos(X) elementwise.", 9, true, unaryOf(math.Acos)).history(opset7),
	unaryRow("Atan", "Y = atan(X) elementwise.", 9, true, unaryOf(math.Atan)).history(opset7),

	// Hyperbolic functions.
	unaryRow("Sinh", "Y = sinh(X) elementwise.", 9, true, unaryOf(math.Sinh)),
	unaryRow("Cosh", "Y = cosh(X) elementwise.", 9, true, unaryOf(math.Cosh)),
	unaryRow("Tanh", "Y = tanh(X) elementwise.", 9, true, unaryOf(math.Tanh)).history(opset1Consumed),
	unaryRow("Asinh", "Y = asinh(X) elementwise.", 9, true, unaryOf(math.Asinh)),
	unaryRow("Acosh", "Y = acosh(X) elementwise.", 9, true, unaryOf(math.Acosh)),
	unaryRow("Atanh", "Y = atanh(X) elementwise.", 9, true, unaryOf(math.Atanh)),

	predicateRow("IsNaN", "Y = (X is NaN) elementwise; Y is bool.", 9, unaryOf(isNaN)),
	predicateRow("IsInf", "Y = (X is +Inf and detect_positive, or -Inf and detect_negative) elementwise; Y is bool.", 10, isInf,
		intAttr("detect_negative", 1), intAttr("detect_positive", 1)),
	{
		Op: "Not", History: opset1, Doc: "Y = logical not of bool X, elementwise.", Inputs: inX, Outputs: outY,
		MinOpset: 9, Elementwise: true, Unary: unaryOf(not), Work: workPerOutput, Infer: inferUnary(isBoolType, "bool"),
	},
	logicRow("And", "and", BinAnd),
	logicRow("Or", "or", BinOr),
	logicRow("Xor", "xor", BinXor),
	compareRow("Greater", ">", BinGreater, 9).history(opset1Broadcast),
	compareRow("Less", "<", BinLess, 9).history(opset1Broadcast),
	compareRow("GreaterOrEqual", ">=", BinGreaterOrEqual, 12),
	compareRow("LessOrEqual", "<=", BinLessOrEqual, 12),
	{
		Op:     "Mod",
		Doc:    "C = A mod B elementwise with numpy broadcasting: the remainder takes the divisor's sign, or the dividend's when fmod=1 (required for floats).",
		Inputs: inAB, Outputs: outC, MinOpset: 10, Elementwise: true,
		Attrs: []AttrSpec{intAttr("fmod", 0)},
		Work:  workPerOutput, Infer: inferMod,
	},
	{
		Op:     "BitShift",
		Doc:    "Z = X shifted left or right (direction \"LEFT\" or \"RIGHT\") by Y bits elementwise, for unsigned integers with numpy broadcasting.",
		Inputs: ins("X", "Y"), Outputs: ins("Z"), MinOpset: 11, Elementwise: true,
		Attrs: []AttrSpec{{Name: "direction", Kind: AttrString, Required: true}},
		Work:  workPerOutput, Infer: inferBitShift,
	},
	{
		Op:      "PRelu",
		History: opset1Consumed,
		Doc:     "Y = X if X >= 0 else slope*X elementwise; slope broadcasts to X.",
		Inputs:  []InputSpec{{Name: "X"}, {Name: "slope"}},
		Outputs: outY, MinOpset: 9, Elementwise: true, Binary: BinPRelu, Work: workPerOutput, Infer: inferPRelu,
	},
	variadicRow("Sum", "Elementwise sum of all inputs with numpy broadcasting.", BinAdd, inferVariadic),
	variadicRow("Mean", "Elementwise mean of all inputs with numpy broadcasting.", BinNone, inferMean),
}

// signedRow is the row of an elementwise op f of one signed input whose
// known values propagate through f.
func signedRow(op, doc string, f func(float64) float64) OpSchema {
	return OpSchema{
		Op: op, Doc: doc, Inputs: inX, Outputs: outY,
		MinOpset: 9, Elementwise: true, Unary: unaryOf(f), Work: workPerOutput, Infer: inferUnaryKnown,
	}
}

// predicateRow is the row of a bool-valued test f of each float element.
func predicateRow(op, doc string, min int64, f UnaryFunc, attrs ...AttrSpec) OpSchema {
	return OpSchema{
		Op: op, Doc: doc, Inputs: inX, Outputs: outY, Attrs: attrs,
		MinOpset: min, Elementwise: true, Unary: f, Work: workPerOutput, Infer: inferPredicate,
	}
}

// logicRow is the row of a commutative logical op of two bool tensors, of
// opset 1 (legacy broadcasting until opset 7).
func logicRow(op, what string, bin BinaryOp) OpSchema {
	return OpSchema{
		Op: op, Doc: "C = A " + what + " B for bool tensors with numpy broadcasting.",
		History: opset1Broadcast,
		Inputs:  inAB, Outputs: outC, MinOpset: 9, Commutative: true, Elementwise: true,
		Binary: bin, Work: workPerOutput, Infer: inferCompare(isBoolType, "bool"),
	}
}

// compareRow is the row of an ordered comparison with a bool output.
func compareRow(op, what string, bin BinaryOp, min int64) OpSchema {
	return OpSchema{
		Op: op, Doc: "C = (A " + what + " B) elementwise with numpy broadcasting; C is bool.",
		Inputs: inAB, Outputs: outC, MinOpset: min, Elementwise: true,
		Binary: bin, Work: workPerOutput, Infer: inferCompare(isNumericType, "a numeric type"),
	}
}

// isBoolType accepts bool.
func isBoolType(d DType) bool { return d == Bool }

// inferUnaryKnown is inferUnary for signed numbers that also propagates
// small known values through the row's function (shape arithmetic negates
// and takes absolute values).
func inferUnaryKnown(n *Node) error {
	if err := inferUnary(isSignedType, "a signed numeric type")(n); err != nil {
		return err
	}
	t := valueOf(n.Inputs[0])
	if t == nil || !knownDType(t.DType) || t.DType == Bool || t.Len() > maxKnownElems {
		return nil
	}
	v, err := t.AsFloat64()
	if err != nil {
		return nil
	}
	f := n.Schema().Unary(n)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = f(x)
	}
	setKnown(n, 0, tensorFromFloat64(t.DType, append([]int(nil), t.Shape...), out))
	return nil
}

// isSignedType accepts floats and signed integers.
func isSignedType(d DType) bool {
	switch d {
	case Int8, Int16, Int32, Int64:
		return true
	}
	return d.IsFloat()
}

// inferPredicate: float input, bool output of the same shape.
func inferPredicate(n *Node) error {
	if err := checkType(n, 0, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	setOut(n, 0, Bool, n.Inputs[0].Shape.Clone())
	return nil
}

// inferCompare: two same-typed inputs of class, broadcast, bool output.
func inferCompare(class func(DType) bool, want string) InferFunc {
	return func(n *Node) error {
		s, err := broadcastPair(n, class, want)
		if err != nil {
			return err
		}
		setOut(n, 0, Bool, s)
		return nil
	}
}

func inferPRelu(n *Node) error {
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	if err := checkSameType(n, 0, 1); err != nil {
		return err
	}
	x, s := n.Inputs[0], n.Inputs[1]
	if !unidirectional(x.Shape, s.Shape) {
		return fmt.Errorf("slope %q has shape %v, not broadcastable to X's %v", s.Name, s.Shape, x.Shape)
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

// inferMean is Sum's inference for float inputs; its row has no Binary
// function, so known values do not propagate.
func inferMean(n *Node) error {
	if err := checkType(n, 0, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	return inferVariadic(n)
}

// inferMod is inferBinary with Mod's fmod attribute in the constant
// propagation (integer shapes are often computed modulo a window size).
func inferMod(n *Node) error {
	if err := inferBinary(false)(n); err != nil {
		return err
	}
	o := n.Output(0)
	if o == nil || !allKnown(n) || !smallOut(o.Shape) || o.DType.IsFloat() {
		return nil
	}
	ts := knownInputs(n)
	if ts == nil {
		return nil
	}
	a, err1 := ts[0].AsInt64()
	b, err2 := ts[1].AsInt64()
	if err1 != nil || err2 != nil {
		return nil
	}
	out := dimsOf(o.Shape)
	ia, ib := bcastIndex(out, ts[0].Shape), bcastIndex(out, ts[1].Shape)
	v := make([]int64, len(ia))
	for i := range v {
		x, y := a[ia[i]], b[ib[i]]
		if y == 0 {
			return nil
		}
		v[i] = ModInt(x, y, n.AttrInt("fmod") != 0)
	}
	setKnown(n, 0, tensorFromInt64(o.DType, out, v))
	return nil
}

// ModInt returns x mod y for y != 0: with the sign of y (Python's %), or
// of x when fmod is set (C's %).
func ModInt(x, y int64, fmod bool) int64 {
	r := x % y
	if !fmod && r != 0 && (r < 0) != (y < 0) {
		r += y
	}
	return r
}

// inferBitShift: two unsigned integer tensors of one dtype, broadcast; the
// direction must be LEFT or RIGHT.
func inferBitShift(n *Node) error {
	if d := n.AttrString("direction"); d != "LEFT" && d != "RIGHT" {
		return fmt.Errorf("attribute direction=%q, want LEFT or RIGHT", d)
	}
	s, err := broadcastPair(n, isUnsignedType, "an unsigned integer type")
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, s)
	return nil
}

// isUnsignedType accepts the unsigned integers.
func isUnsignedType(d DType) bool {
	switch d {
	case Uint8, Uint16, Uint32, Uint64:
		return true
	}
	return false
}
