package graph

import "fmt"

// UnsupportedOpError reports that a runtime cannot run a graph because it
// does not implement one of its nodes. Executors return it when they
// compile a graph; verification detects it with errors.As and skips that
// runtime rather than failing.
type UnsupportedOpError struct {
	// Node is the node the runtime cannot run.
	Node *Node
	// Runtime names the runtime ("Go executor").
	Runtime string
}

func (e *UnsupportedOpError) Error() string {
	return fmt.Sprintf("%v: op is not supported by the %s", e.Node, e.Runtime)
}
