package graph

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteDOT writes g as a Graphviz digraph. Operator nodes are boxes
// labelled with the op and its attributes (long values shortened); graph
// inputs, constants and graph outputs are separate shapes and colours; each
// edge is labelled with the tensor's shape. The output is deterministic.
func (g *Graph) WriteDOT(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("digraph %s {\n", dotQuote(g.Name))
	p("  rankdir=TB;\n")
	p("  node [fontname=\"Helvetica\", fontsize=10];\n")
	p("  edge [fontname=\"Helvetica\", fontsize=9];\n")

	src := make(map[*Value]string)
	for i, in := range g.Inputs {
		id := fmt.Sprintf("in%d", i)
		src[in] = id
		p("  %s [shape=invhouse, style=filled, fillcolor=\"#cfe2ff\", label=%s];\n", id, dotQuote(in.Name+"\n"+valueType(in)))
	}
	for i, c := range g.Constants() {
		if _, ok := src[c]; ok {
			continue
		}
		id := fmt.Sprintf("c%d", i)
		src[c] = id
		p("  %s [shape=note, style=filled, fillcolor=\"#eeeeee\", label=%s];\n", id, dotQuote(c.Name+"\n"+valueType(c)))
	}
	for i, n := range g.Nodes {
		id := fmt.Sprintf("n%d", i)
		for _, o := range n.Outputs {
			if o != nil {
				src[o] = id
			}
		}
		style := ""
		if n.IsOpaque() {
			style = ", style=dashed"
		}
		p("  %s [shape=box%s, label=%s];\n", id, style, dotQuote(nodeLabel(n)))
	}
	for i, o := range g.Outputs {
		p("  out%d [shape=house, style=filled, fillcolor=\"#d1e7dd\", label=%s];\n", i, dotQuote(o.Name+"\n"+valueType(o)))
	}
	for i, n := range g.Nodes {
		for _, in := range n.AllInputs() {
			if in == nil {
				continue
			}
			from, ok := src[in]
			if !ok {
				continue
			}
			p("  %s -> n%d [label=%s];\n", from, i, dotQuote(shapeLabel(in)))
		}
	}
	for i, o := range g.Outputs {
		if from, ok := src[o]; ok {
			p("  %s -> out%d [label=%s];\n", from, i, dotQuote(shapeLabel(o)))
		}
	}
	p("}\n")
	return bw.Flush()
}

// nodeLabel is the op name followed by one line per attribute.
func nodeLabel(n *Node) string {
	var sb strings.Builder
	if n.Domain != "" && n.Domain != "ai.onnx" {
		sb.WriteString(n.Domain + ".")
	}
	sb.WriteString(n.Op)
	for _, name := range n.Attrs.Names() {
		v := n.Attrs[name].Format()
		if len(v) > 24 {
			v = v[:21] + "..."
		}
		sb.WriteString("\n" + name + "=" + v)
	}
	return sb.String()
}

func valueType(v *Value) string {
	return v.DType.String() + "[" + shapeLabel(v) + "]"
}

func shapeLabel(v *Value) string {
	if !v.ShapeKnown {
		return "?"
	}
	return v.Shape.String()
}

// dotQuote returns s as a DOT double-quoted string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
