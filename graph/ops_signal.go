package graph

import (
	"fmt"
	"math"
)

// Window functions of signal processing: HannWindow, HammingWindow and
// BlackmanWindow. Their length is a Param input, so their values are known
// whenever their shape is.

// signalOps are the rows of this file.
var signalOps = []OpSchema{
	windowRow("HannWindow", "0.5 - 0.5 cos(2 pi n / N)"),
	windowRow("HammingWindow", "25/46 - 21/46 cos(2 pi n / N)"),
	windowRow("BlackmanWindow", "0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)"),
}

// windowRow is the row of a cosine-sum window whose element n is f.
func windowRow(op, f string) OpSchema {
	return OpSchema{
		Op: op, MinOpset: 17, Work: workPerOutput, Infer: inferWindow, Inputs: []InputSpec{param("size")}, Outputs: ins("output"),
		Attrs: []AttrSpec{intAttr("output_datatype", int64(Float32)), intAttr("periodic", 1)},
		Doc:   "output[n] = " + f + " for n in [0, size), N = size if periodic else size - 1, of dtype output_datatype.",
	}
}

// windowCoefs are the cosine-sum coefficients a_k of each window:
// w[n] = sum_k (-1)^k a_k cos(2 pi k n / N).
var windowCoefs = map[string][]float64{
	"HannWindow":     {0.5, 0.5},
	"HammingWindow":  {25.0 / 46, 21.0 / 46},
	"BlackmanWindow": {0.42, 0.5, 0.08},
}

// WindowValues returns the size elements of window op (HannWindow,
// HammingWindow or BlackmanWindow), periodic or symmetric. A symmetric
// window of one element is [1], as in numpy.
func WindowValues(op string, size int64, periodic bool) []float64 {
	a := windowCoefs[op]
	den := float64(size)
	if !periodic {
		den--
	}
	out := make([]float64, size)
	if size == 1 && !periodic {
		out[0] = 1
		return out
	}
	for n := range out {
		sign := 1.0
		for k, c := range a {
			out[n] += sign * c * math.Cos(2*math.Pi*float64(k*n)/den)
			sign = -sign
		}
	}
	return out
}

func inferWindow(n *Node) error {
	if err := checkType(n, 0, isIndexType, "int32 or int64"); err != nil {
		return err
	}
	dt := DType(n.AttrInt("output_datatype"))
	if !isNumericType(dt) {
		return fmt.Errorf("attribute output_datatype=%d is not a numeric dtype", n.AttrInt("output_datatype"))
	}
	v, _, err := constInts(n, 0)
	if err != nil {
		return err
	}
	if len(v) != 1 || v[0] < 0 {
		return fmt.Errorf("size must be one non-negative integer, is %v", v)
	}
	s := Shape{{Value: v[0]}}
	setOut(n, 0, dt, s)
	if smallOut(s) && knownDType(dt) {
		setKnown(n, 0, tensorFromFloat64(dt, dimsOf(s), WindowValues(n.Op, v[0], n.AttrInt("periodic") != 0)))
	}
	return nil
}
