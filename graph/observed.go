package graph

import (
	"errors"
	"fmt"
)

// ObservedType is the dtype and shape of a value as seen when the model was
// run once (by ONNX Runtime) on inputs of the bound shapes.
type ObservedType struct {
	DType DType
	Shape []int
}

// ShapeUnknown reports whether err (from InferShapes or BindShapes) means
// that static inference cannot determine some value's shape: an opaque node
// without recorded output shapes, or a shape that depends on a value known
// only at run time. Running the model once resolves such errors (see
// InferShapesObserved); other inference errors are real defects.
func ShapeUnknown(err error) bool {
	var dyn *DynamicValueError
	return errors.Is(err, errOpaqueUnknown) || errors.As(err, &dyn)
}

// InferShapesObserved is InferShapes for graphs that static inference cannot
// finish: a node whose inference fails with a ShapeUnknown error takes the
// types of its outputs from obs (keyed by value name), and inference
// continues after it. It returns those nodes in graph order. A node that
// fails for another reason, or whose outputs are missing from obs, is an
// error naming it.
func (g *Graph) InferShapesObserved(obs map[string]ObservedType) ([]*Node, error) {
	var used []*Node
	err := g.inferAll(func(n *Node, cause error) error {
		if !ShapeUnknown(cause) {
			return cause
		}
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			t, ok := obs[o.Name]
			if !ok {
				return fmt.Errorf("%w; output %q was not observed either", cause, o.Name)
			}
			if !t.DType.Valid() {
				return fmt.Errorf("%v: output %q: observed dtype %v is not valid", n, o.Name, t.DType)
			}
			o.SetStatic(t.DType, t.Shape)
		}
		used = append(used, n)
		return nil
	})
	return used, err
}
