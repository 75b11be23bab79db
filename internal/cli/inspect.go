package cli

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/internal/atomicfile"
	"github.com/xrl-dev/xrl/pipeline"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/rewrite"
)

type inspectOptions struct {
	IO         IO
	Model      string
	Shapes     shapeOptions
	DOT        string
	Candidates bool
}

// NewCmdInspect returns `xrl inspect MODEL.onnx`.
func NewCmdInspect(s IO, runF func(*inspectOptions) error) *cobra.Command {
	opts := &inspectOptions{IO: s}
	c := leaf(&cobra.Command{
		Use:   "inspect MODEL.onnx",
		Short: "Describe a model: inputs, outputs, op histogram, parameters, FLOPs",
		Long: `inspect prints a model's inputs and outputs with their shapes, a histogram of its
operators, the operators xrl keeps opaque (unsupported: never rewritten or run by the
Go executor), its parameter count and, once shapes are bound, its FLOPs.`,
		Args: cobra.ExactArgs(1),
	}, opts, func(c *cobra.Command, args []string) error {
		opts.Model = args[0]
		return nil
	}, runF, inspectRun)
	opts.Shapes.addFlags(c)
	c.Flags().StringVar(&opts.DOT, "dot", "", "also write the graph in Graphviz DOT format to this file")
	c.Flags().BoolVar(&opts.Candidates, "candidates", false, "also list how many rewrite candidates each rule produces (needs bound shapes)")
	return c
}

func inspectRun(o *inspectOptions) error {
	bind, err := o.Shapes.bindings()
	if err != nil {
		return err
	}
	m, err := pipeline.ReadModel(o.Model)
	if err != nil {
		return err
	}
	g := m.Graph
	if err := g.Validate(); err != nil {
		return fmt.Errorf("%s: %w", o.Model, err)
	}
	w := o.IO.Out
	fmt.Fprintf(w, "model     %s\n", o.Model)
	fmt.Fprintf(w, "format    ir_version %d, opsets %s", m.IRVersion, opsetString(m.Opsets))
	if m.ProducerName != "" {
		fmt.Fprintf(w, ", producer %s %s", m.ProducerName, m.ProducerVersion)
	}
	fmt.Fprintln(w)

	// Bind a copy so that symbolic shapes are shown as imported, and FLOPs
	// can still be computed where binding succeeds.
	boundModel := *m
	boundModel.Graph = g.Clone()
	bound := boundModel.Graph
	observed, bindErr := measure.BindShapes(&boundModel, bind)

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
	tw.Flush()

	writeHistogram(w, g)
	fmt.Fprintf(w, "parameters  %s (%d)\n", humanCount(float64(models.Params(g))), models.Params(g))
	writeBodies(w, g)
	if bindErr != nil {
		fmt.Fprintf(w, "FLOPs       unknown: %v\n", bindErr)
	} else {
		fmt.Fprintf(w, "FLOPs       %s (at %s)\n", humanCount(float64(graph.FLOPs(bound))), boundInputs(bound))
	}
	if len(observed) > 0 {
		fmt.Fprintf(w, "shapes      of %d node(s) observed in ONNX Runtime (static inference cannot know them), first %v\n", len(observed), observed[0])
	}
	if o.Candidates {
		if bindErr != nil {
			return fmt.Errorf("%s: --candidates needs static shapes: %w", o.Model, bindErr)
		}
		if err := writeCandidates(w, bound); err != nil {
			return fmt.Errorf("%s: %w", o.Model, err)
		}
	}
	if o.DOT != "" {
		if err := atomicfile.Write(o.DOT, func(f io.Writer) error { return g.WriteDOT(f) }); err != nil {
			return fmt.Errorf("writing %s: %w", o.DOT, err)
		}
		fmt.Fprintf(w, "wrote %s\n", o.DOT)
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

func writeHistogram(w io.Writer, g *graph.Graph) {
	counts := map[string]int{}
	opaque := map[string]int{}
	for _, n := range g.Nodes {
		key := n.Op
		if n.Domain != "" && n.Domain != "ai.onnx" {
			key = n.Domain + "." + n.Op
		}
		counts[key]++
		if n.IsOpaque() && len(n.Bodies) == 0 {
			opaque[key]++
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	fmt.Fprintf(w, "\nnodes       %d\n", len(g.Nodes))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, k := range keys {
		mark := ""
		if opaque[k] > 0 {
			mark = "  (opaque)"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", k, counts[k], mark)
	}
	tw.Flush()
	if len(opaque) == 0 {
		fmt.Fprintln(w, "opaque ops  none")
	} else {
		names := make([]string, 0, len(opaque))
		for k := range opaque {
			names = append(names, k)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "opaque ops  %v (kept verbatim; not rewritten; not run by the Go executor)\n", names)
	}
}

func humanCount(v float64) string {
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

// writeCandidates prints the per-rule candidate counts of g's first
// rewrite step (after folding constant subgraphs, as optimize does).
func writeCandidates(w io.Writer, g *graph.Graph) error {
	engine, err := pipeline.NewEngine(nil, len(g.Nodes))
	if err != nil {
		return err
	}
	folded, _, err := rewrite.Fold(g, executor.Evaluate)
	if err != nil {
		return fmt.Errorf("folding constants: %w", err)
	}
	cands, st, err := engine.CandidatesWithStats(folded)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\ncandidates  %d from %d matches of %d rules, in %v\n", len(cands), st.Matches, len(engine.Rules()), st.Total.Round(time.Microsecond))
	return rewrite.WriteCandidateTable(w, st)
}
