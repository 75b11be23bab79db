package inspect

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/xrl-dev/xrl/graph"
)

// Write prints the report as `xrl inspect` shows it.
func (r *Report) Write(w io.Writer) error {
	m, g := r.Model, r.Model.Graph
	fmt.Fprintf(w, "model     %s\n", r.Path)
	fmt.Fprintf(w, "format    ir_version %d, opsets %s", m.IRVersion, opsetString(m.Opsets))
	if m.ProducerName != "" {
		fmt.Fprintf(w, ", producer %s %s", m.ProducerName, m.ProducerVersion)
	}
	fmt.Fprintln(w)

	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\ninputs\t\t")
	for _, v := range g.Inputs {
		if v.Const == nil {
			fmt.Fprintf(tw, "  %s\t%v\t%s\n", v.Name, v.DType, shapeOf(v))
		}
	}
	fmt.Fprintln(tw, "outputs\t\t")
	for _, v := range g.Outputs {
		fmt.Fprintf(tw, "  %s\t%v\t%s\n", v.Name, v.DType, shapeOf(v))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if err := r.writeHistogram(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "parameters  %s (%d)\n", HumanCount(float64(r.Params)), r.Params)
	if b := r.Bodies; b.Bodies > 0 {
		fmt.Fprintf(w, "bodies      %d If/Loop/Scan bodies hold %d more nodes and %s (%d) more parameters (not counted above; bodies are rewritten with the same rules, and run by the Go executor when their shapes are static)\n",
			b.Bodies, b.Nodes, HumanCount(float64(b.Params)), b.Params)
	}
	if r.BindErr != nil {
		fmt.Fprintf(w, "FLOPs       unknown: %v\n", r.BindErr)
	} else {
		fmt.Fprintf(w, "FLOPs       %s (at %s)\n", HumanCount(float64(r.FLOPs)), boundInputs(r.Bound))
	}
	if len(r.Observed) > 0 {
		fmt.Fprintf(w, "shapes      of %d node(s) observed in ONNX Runtime (static inference cannot know them), first %v\n", len(r.Observed), r.Observed[0])
	}
	return nil
}

// writeHistogram prints the node count, the nodes per op and the opaque
// ops.
func (r *Report) writeHistogram(w io.Writer) error {
	fmt.Fprintf(w, "\nnodes       %d\n", len(r.Model.Graph.Nodes))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, op := range r.Ops {
		mark := ""
		if op.Opaque {
			mark = "  (opaque)"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", op.Op, op.N, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Opaque) == 0 {
		fmt.Fprintln(w, "opaque ops  none")
	} else {
		fmt.Fprintf(w, "opaque ops  %v (kept verbatim; not rewritten; not run by the Go executor)\n", r.Opaque)
	}
	return nil
}

func shapeOf(v *graph.Value) string {
	if !v.ShapeKnown {
		return "unknown shape"
	}
	return v.Shape.String()
}

func opsetString(ops []graph.OpsetID) string {
	s := ""
	for i, o := range ops {
		if i > 0 {
			s += ", "
		}
		d := o.Domain
		if d == "" {
			d = "ai.onnx"
		}
		s += fmt.Sprintf("%s %d", d, o.Version)
	}
	return s
}

// HumanCount formats a count with a K, M, G or T suffix and two decimals
// ("1.23M"), or as an integer below a thousand.
func HumanCount(v float64) string {
	switch {
	case v >= 1e12:
		return fmt.Sprintf("%.2fT", v/1e12)
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2fK", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// boundInputs formats the bound input shapes as "x=1x3x224x224, y=1x8".
func boundInputs(g *graph.Graph) string {
	s := ""
	for _, v := range g.Inputs {
		if v.Const != nil {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += v.Name + "=" + v.Shape.String()
	}
	return s
}
