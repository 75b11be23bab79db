package graph

// opTables lists the rows of the op-schema table, one slice per topic file
// (ops_*.go). Each row is plain data: what an operator takes and returns,
// its attributes, flags and per-op facts, and the functions that infer its
// shapes. init registers every row; nothing else adds to the table.
var opTables = [][]OpSchema{
	elementwiseOps, mathOps, linalgOps, convOps, poolOps, normOps, normMoreOps,
	reduceOps, reduceMoreOps, tensorOps, sliceOps, indexOps, generateOps,
	resizeOps, lossOps, miscOps, quantOps, signalOps, contribOps, contribAttentionOps, contribGroupQueryOps, contribMathOps, contribNormOps,
}

func init() {
	for _, rows := range opTables {
		for i := range rows {
			register(&rows[i])
		}
	}
}
