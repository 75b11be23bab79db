package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/inspect"
	"github.com/xrl-dev/xrl/internal/atomicfile"
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
	rep, err := inspect.Read(o.Model, bind)
	if err != nil {
		return err
	}
	w := o.IO.Out
	if err := rep.Write(w); err != nil {
		return err
	}
	if o.Candidates {
		if rep.BindErr != nil {
			return fmt.Errorf("%s: --candidates needs static shapes: %w", o.Model, rep.BindErr)
		}
		c, err := inspect.CandidatesOf(rep.Bound)
		if err == nil {
			err = c.Write(w)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", o.Model, err)
		}
	}
	if o.DOT != "" {
		if err := atomicfile.Write(o.DOT, func(f io.Writer) error { return rep.Model.Graph.WriteDOT(f) }); err != nil {
			return fmt.Errorf("writing %s: %w", o.DOT, err)
		}
		fmt.Fprintf(w, "wrote %s\n", o.DOT)
	}
	return nil
}

// humanCount formats a count as inspect does ("1.23M").
func humanCount(v float64) string { return inspect.HumanCount(v) }
