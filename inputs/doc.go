// Package inputs provides the input sets models are run on when xrl
// checks that two of them compute the same function or times them.
//
// Random draws seeded random inputs that exercise the model rather than
// only fill its tensors: floats are uniform in [-1, 1) (a hundred times
// larger on every third seed); an integer input the graph reads as Gather
// indices is drawn over the axis it indexes; a Loop's trip count is drawn
// above 1 so that every body runs more than one iteration; other integers
// mix 0 and 1, small values and the constants the graph compares or
// equates them with (found by following the input through casts,
// reshapes and constant offsets to an Equal, Less or Greater), so that an
// If on a sample rate or a step count sees its real values. Generator
// holds that analysis for drawing many sets from one graph, and
// InputIfs names the If nodes whose condition depends on the inputs,
// which verification must see taken both ways.
//
// Read loads a user's own input sets: a directory in ONNX's test-data
// layout (input_0.pb ... TensorProto files, or test_data_set_N
// directories of them, as in the ONNX model zoo) or NumPy .npz archives
// (read without Python). Set.Match checks a set against a graph's inputs.
package inputs
