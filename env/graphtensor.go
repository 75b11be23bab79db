package env

import (
	"fmt"
	"sync"

	"github.com/xrl-dev/xrl/graph"
)

// EdgeDim is the width of an edge feature: the tensor's shape left-padded
// with zeros to rank 4 (higher ranks fold their leading dimensions into
// the first), divided by ShapeScale.
const EdgeDim = 4

// ShapeScale (M in the X-RLflow paper) divides shape entries in edge
// features.
const ShapeScale = 4096

// GlobalDim is the width of a graph's global attribute.
const GlobalDim = 1

// GraphTensor encodes one graph for a graph neural network. Nodes are the
// graph's operators plus one node per graph input and per constant; edges
// run from the node producing a tensor to each node consuming it.
type GraphTensor struct {
	// NodeClass is each node's op class (see OpClasses), len = number of nodes.
	NodeClass []int32
	// Senders and Receivers are edge endpoints (node indices), one per edge.
	Senders, Receivers []int32
	// EdgeFeat holds len(Senders) rows of EdgeDim features, row-major.
	EdgeFeat []float32
	// Global is the global attribute (GlobalDim values, zero initially).
	Global []float32
}

// NumNodes returns the number of nodes.
func (t *GraphTensor) NumNodes() int { return len(t.NodeClass) }

// NumEdges returns the number of edges.
func (t *GraphTensor) NumEdges() int { return len(t.Senders) }

// Check verifies the arrays are consistent; it returns an error describing
// the first problem.
func (t *GraphTensor) Check() error {
	n := int32(len(t.NodeClass))
	if len(t.Senders) != len(t.Receivers) {
		return fmt.Errorf("graph tensor: %d senders but %d receivers", len(t.Senders), len(t.Receivers))
	}
	if len(t.EdgeFeat) != EdgeDim*len(t.Senders) {
		return fmt.Errorf("graph tensor: %d edge features for %d edges", len(t.EdgeFeat), len(t.Senders))
	}
	if len(t.Global) != GlobalDim {
		return fmt.Errorf("graph tensor: global attribute of width %d, want %d", len(t.Global), GlobalDim)
	}
	nc := int32(NumOpClasses())
	for i, c := range t.NodeClass {
		if c < 0 || c >= nc {
			return fmt.Errorf("graph tensor: node %d has class %d outside [0,%d)", i, c, nc)
		}
	}
	for i := range t.Senders {
		if s, r := t.Senders[i], t.Receivers[i]; s < 0 || s >= n || r < 0 || r >= n {
			return fmt.Errorf("graph tensor: edge %d (%d->%d) outside [0,%d)", i, s, r, n)
		}
	}
	for i, f := range t.EdgeFeat {
		if f != f || f < 0 {
			return fmt.Errorf("graph tensor: edge feature %d is %v", i, f)
		}
	}
	return nil
}

// Op classes beyond the schema table's operators.
const (
	ClassInput  = "<input>"  // a graph input
	ClassWeight = "<weight>" // a constant (initializer)
	ClassOther  = "<other>"  // an opaque operator
)

var (
	classOnce  sync.Once
	classNames []string
	classIndex map[string]int32
)

func initClasses() {
	classOnce.Do(func() {
		classNames = append(operatorClasses[:len(operatorClasses):len(operatorClasses)], ClassInput, ClassWeight, ClassOther)
		classIndex = make(map[string]int32, len(classNames))
		for i, n := range classNames {
			classIndex[n] = int32(i)
		}
	})
}

// OpClasses returns the names of the node classes in index order: the
// frozen operator list (operatorClasses), then ClassInput, ClassWeight
// and ClassOther. An operator outside the list, opaque or of another
// domain encodes as ClassOther.
func OpClasses() []string {
	initClasses()
	return append([]string(nil), classNames...)
}

// NumOpClasses returns len(OpClasses()).
func NumOpClasses() int {
	initClasses()
	return len(classNames)
}

// nodeClass returns the class index of a node.
func nodeClass(n *graph.Node) int32 {
	initClasses()
	if n.IsOpaque() {
		return classIndex[ClassOther]
	}
	name := n.Op
	if n.Domain != "" && n.Domain != "ai.onnx" {
		name = n.Domain + "." + n.Op
	}
	if c, ok := classIndex[name]; ok {
		return c
	}
	return classIndex[ClassOther]
}

// shapeFeature writes the edge feature of a value into dst (EdgeDim wide).
func shapeFeature(v *graph.Value, dst []float32) {
	for i := range dst[:EdgeDim] {
		dst[i] = 0
	}
	if v == nil || !v.ShapeKnown {
		return
	}
	dim := func(i int) float64 {
		if d := v.Shape[i]; d.Known() {
			return float64(d.Value)
		}
		return 0
	}
	r := len(v.Shape)
	first := 0 // the leading dimensions folded into one entry
	if r > EdgeDim {
		fold := 1.0
		for i := range r - EdgeDim + 1 {
			fold *= dim(i)
		}
		dst[0] = float32(fold / ShapeScale)
		first = r - EdgeDim + 1
	}
	off := EdgeDim - (r - first)
	for i := first; i < r; i++ {
		dst[off+i-first] = float32(dim(i) / ShapeScale)
	}
}

// EncodeGraph returns the graph tensor of g. Nodes are numbered: graph
// inputs first (in order), then constants (in g.Constants order), then
// operators in g.Nodes order.
func EncodeGraph(g *graph.Graph) *GraphTensor {
	return encodeBase(g).t
}

// baseEncoding is a graph's tensor with what encoding its lazy
// candidates from it needs (see encodeCandidate).
type baseEncoding struct {
	g *graph.Graph
	t *GraphTensor
	// src numbers the graph's inputs, constants and node outputs; nIn
	// nodes are inputs, operator i is node first+i, and its incoming
	// edges are edges[edgeOff[i]:edgeOff[i+1]].
	src       map[*graph.Value]int32
	nIn       int32
	first     int32
	edgeOff   []int32
	initsOnly bool // the constants are the initializers, in order
}

// encodeBase encodes g (EncodeGraph) keeping what encodeCandidate needs.
func encodeBase(g *graph.Graph) *baseEncoding {
	initClasses()
	consts := g.Constants()
	nNodes := len(consts) + len(g.Nodes)
	for _, in := range g.Inputs {
		if in.Const == nil {
			nNodes++
		}
	}
	t := &GraphTensor{NodeClass: make([]int32, 0, nNodes), Global: make([]float32, GlobalDim)}
	b := &baseEncoding{g: g, t: t, src: make(map[*graph.Value]int32, nNodes), edgeOff: make([]int32, 0, len(g.Nodes)+1)}
	for _, in := range g.Inputs {
		if in.Const == nil {
			b.src[in] = int32(len(t.NodeClass))
			t.NodeClass = append(t.NodeClass, classIndex[ClassInput])
		}
	}
	b.nIn = int32(len(t.NodeClass))
	b.initsOnly = len(consts) == len(g.Initializers)
	for i, c := range consts {
		b.src[c] = int32(len(t.NodeClass))
		t.NodeClass = append(t.NodeClass, classIndex[ClassWeight])
		b.initsOnly = b.initsOnly && g.Initializers[i] == c
	}
	b.first = int32(len(t.NodeClass))
	for i, n := range g.Nodes {
		t.NodeClass = append(t.NodeClass, nodeClass(n))
		for _, o := range n.Outputs {
			if o != nil {
				b.src[o] = b.first + int32(i)
			}
		}
	}
	var feat [EdgeDim]float32
	for i, n := range g.Nodes {
		b.edgeOff = append(b.edgeOff, int32(len(t.Senders)))
		recv := b.first + int32(i)
		for _, in := range n.AllInputs() {
			if in == nil {
				continue
			}
			s, ok := b.src[in]
			if !ok {
				continue
			}
			t.Senders = append(t.Senders, s)
			t.Receivers = append(t.Receivers, recv)
			shapeFeature(in, feat[:])
			t.EdgeFeat = append(t.EdgeFeat, feat[:]...)
		}
	}
	b.edgeOff = append(b.edgeOff, int32(len(t.Senders)))
	return b
}
