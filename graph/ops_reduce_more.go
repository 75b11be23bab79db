package graph

// The remaining Reduce operators, and ArgMax/ArgMin.

// reduceMoreOps are the rows of this file.
var reduceMoreOps = []OpSchema{
	reduceRow("ReduceMin", "the minimum", 18, workPerInput),
	reduceRow("ReduceProd", "the product", 18, workPerOutput),
	reduceRow("ReduceL1", "the sum of absolute values", 18, workPerOutput),
	reduceRow("ReduceL2", "the square root of the sum of squares", 18, workPerOutput),
	reduceRow("ReduceLogSum", "the natural log of the sum", 18, workPerOutput),
	reduceRow("ReduceLogSumExp", "the natural log of the sum of exponentials", 18, workPerOutput),
	reduceRow("ReduceSumSquare", "the sum of squares", 18, workPerOutput),
	argRow("ArgMax", "maximum"),
	argRow("ArgMin", "minimum"),
}

// argRow is the row of an index-of-extremum op along one axis (opset 1;
// select_last_index came in opset 12).
func argRow(op, what string) OpSchema {
	return OpSchema{Op: op, MinOpset: 9, Work: workPerOutput, Infer: inferArgReduce,
		History: History{First: 1, AttrSince: map[string]int64{"select_last_index": 12}}, Inputs: ins("data"), Outputs: ins("reduced"),
		Attrs: []AttrSpec{intAttr("axis", 0), intAttr("keepdims", 1), intAttr("select_last_index", 0)},
		Doc:   "reduced = int64 index of the " + what + " of data along axis (the last such index if select_last_index, else the first); axis kept as size 1 if keepdims."}
}

func inferArgReduce(n *Node) error {
	x, ax, err := axisInput(n, isNumericType, "a numeric type")
	if err != nil {
		return err
	}
	out := make(Shape, 0, len(x.Shape))
	for i, d := range x.Shape {
		switch {
		case i != ax:
			out = append(out, d)
		case n.AttrInt("keepdims") != 0:
			out = append(out, Dim{Value: 1})
		}
	}
	setOut(n, 0, Int64, out)
	return nil
}
