package measure

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// TypeObserver is implemented by backends that can report the dtype and
// shape of every intermediate value by running a model once (ONNX Runtime).
type TypeObserver interface {
	ObserveTypes(m *graph.Model, inputs map[string]*graph.Tensor) (map[string]graph.ObservedType, error)
}

// BindShapes binds the shapes of m's inputs (graph.Graph.BindShapes) and
// infers the shape of every value. Values that static inference cannot
// determine (ops outside xrl's table, control flow, shapes that depend on
// run-time values) take the types observed by running the bound model
// once in ONNX Runtime on seeded random inputs, so that such an op never
// blocks optimising the rest of the graph. It returns the nodes whose
// output types were observed rather than inferred (nil when none were).
// Without ONNX Runtime such models fail with inference's error.
func BindShapes(m *graph.Model, bind map[string][]int) ([]*graph.Node, error) {
	return BindShapesWith(m, bind, graph.BindOptions{})
}

// BindShapesWith is BindShapes with binding options. Observed types are
// sizes only: the values computed by ops outside the table carry no
// symbolic expressions.
func BindShapesWith(m *graph.Model, bind map[string][]int, bo graph.BindOptions) ([]*graph.Node, error) {
	err := m.Graph.BindShapesWith(bind, bo)
	if err == nil || !graph.ShapeUnknown(err) {
		return nil, err
	}
	obs, oerr := observeTypes(m)
	if oerr != nil {
		return nil, fmt.Errorf("%w (running the model in ONNX Runtime to observe the shapes failed: %v)", err, oerr)
	}
	return m.Graph.InferShapesObserved(obs)
}

// observeTypes runs m once on the first registered TypeObserver backend.
func observeTypes(m *graph.Model) (map[string]graph.ObservedType, error) {
	f, ok := backends["ort"]
	if !ok {
		return nil, fmt.Errorf("ONNX Runtime backend not linked in")
	}
	be, err := f(BackendOptions{})
	if err != nil {
		return nil, err
	}
	o, ok := be.(TypeObserver)
	if !ok {
		return nil, fmt.Errorf("backend %s cannot observe value types", be.Name())
	}
	in, err := RandomInputs(m.Graph, 1)
	if err != nil {
		return nil, err
	}
	return o.ObserveTypes(m, in)
}
