package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/pipeline"
)

type convertOptions struct {
	IO     IO
	In     string
	Output string
}

// NewCmdConvert returns `xrl convert IN.onnx OUT.onnx`.
func NewCmdConvert(s IO, runF func(*convertOptions) error) *cobra.Command {
	opts := &convertOptions{IO: s}
	return leaf(&cobra.Command{
		Use:   "convert IN.onnx OUT.onnx",
		Short: "Read a model into xrl's IR and write it back (a lossless round trip)",
		Long: `convert reads an ONNX model, validates it, and writes it again through xrl's
codec. The output computes the same function and has the same structure; use it to
check that xrl understands a model before optimising it.`,
		Args: cobra.ExactArgs(2),
	}, opts, func(c *cobra.Command, args []string) error {
		opts.In, opts.Output = args[0], args[1]
		return nil
	}, runF, convertRun)
}

func convertRun(o *convertOptions) error {
	m, err := pipeline.ReadModel(o.In)
	if err != nil {
		return err
	}
	if err := m.Graph.Validate(); err != nil {
		return fmt.Errorf("%s: %w", o.In, err)
	}
	if err := onnx.WriteFile(o.Output, m); err != nil {
		return fmt.Errorf("writing %s: %w", o.Output, err)
	}
	fmt.Fprintf(o.IO.Out, "wrote %s (%d nodes, %d initializers)\n", o.Output, len(m.Graph.Nodes), len(m.Graph.Initializers))
	return nil
}
