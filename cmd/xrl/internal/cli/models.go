package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
)

// NewCmdModels returns `xrl models` with its list and export subcommands.
func NewCmdModels(s IO) *cobra.Command {
	return group(&cobra.Command{Use: "models", Short: "The built-in model zoo: list and export benchmark networks"},
		NewCmdModelsList(s, nil), NewCmdModelsExport(s, nil))
}

type modelsListOptions struct {
	IO     IO
	Preset string
}

// NewCmdModelsList returns `xrl models list`.
func NewCmdModelsList(s IO, runF func(*modelsListOptions) error) *cobra.Command {
	opts := &modelsListOptions{IO: s}
	c := leaf(&cobra.Command{
		Use:   "list",
		Short: "List the zoo's models with sizes, node count, parameters and FLOPs",
		Long: `list builds every model of the zoo at the chosen preset and prints its sizes,
node count, parameter count and FLOPs (2 per multiply-add). Presets: "cpu" (same
structure as the paper, sized for 5-50 ms on 2 CPU cores) and "paper" (the sizes of
the X-RLflow / TASO benchmarks; building them takes a while). The scale graphs
follow the benchmark networks: resmlp has 1,000 nodes at cpu and 50,000 at paper
(--layers sets its blocks, 4 nodes each).`,
		Args: cobra.NoArgs,
	}, opts, func(c *cobra.Command, args []string) error {
		if opts.Preset != models.PresetCPU && opts.Preset != models.PresetPaper {
			return usagef("--preset %q: want cpu or paper", opts.Preset)
		}
		return nil
	}, runF, modelsListRun)
	c.Flags().StringVar(&opts.Preset, "preset", models.PresetCPU, "preset to build: cpu or paper")
	return c
}

func modelsListRun(o *modelsListOptions) error {
	tw := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "MODEL\tPRESET %s SIZES\tNODES\tPARAMS\tFLOPS\tDESCRIPTION\n", o.Preset)
	for _, spec := range append(models.List(), models.ScaleGraphs()...) {
		sizes, err := spec.Sizes(o.Preset)
		if err != nil {
			return err
		}
		parts := make([]string, len(sizes))
		for i, s := range sizes {
			parts[i] = fmt.Sprintf("%s=%d", s.Name, s.Value)
		}
		m, err := models.Build(spec.Name, o.Preset, models.Overrides{})
		if err != nil {
			return err
		}
		g := m.Graph
		desc := spec.Description
		for _, sep := range []string{". ", "; ", " ("} {
			if i := strings.Index(desc, sep); i > 0 {
				desc = desc[:i]
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", spec.Name, strings.Join(parts, " "), len(g.Nodes),
			humanCount(float64(models.Params(g))), humanCount(float64(graph.FLOPs(g))), desc)
	}
	return tw.Flush()
}

type modelsExportOptions struct {
	IO        IO
	Name      string
	Preset    string
	Output    string
	Overrides models.Overrides
}

// NewCmdModelsExport returns `xrl models export NAME -o FILE.onnx`.
func NewCmdModelsExport(s IO, runF func(*modelsExportOptions) error) *cobra.Command {
	opts := &modelsExportOptions{IO: s}
	c := leaf(&cobra.Command{
		Use:   "export NAME -o FILE.onnx",
		Short: "Build a zoo model and write it as ONNX",
		Long: `export builds a model of the zoo with seeded random weights at a preset, with
optional size overrides, and writes it as an ONNX file (opset 17).`,
		Args: cobra.ExactArgs(1),
	}, opts, func(c *cobra.Command, args []string) error {
		opts.Name = args[0]
		if opts.Output == "" {
			return usagef("-o/--output is required")
		}
		if opts.Preset != models.PresetCPU && opts.Preset != models.PresetPaper {
			return usagef("--preset %q: want cpu or paper", opts.Preset)
		}
		return nil
	}, runF, modelsExportRun)
	f := c.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "output ONNX file")
	f.StringVar(&opts.Preset, "preset", models.PresetCPU, "size preset: cpu or paper")
	f.IntVar(&opts.Overrides.Batch, "batch", 0, "batch size (0 = preset)")
	f.IntVar(&opts.Overrides.Seq, "seq", 0, "sequence length (0 = preset)")
	f.IntVar(&opts.Overrides.Image, "image", 0, "image height and width (0 = preset)")
	f.IntVar(&opts.Overrides.Hidden, "hidden", 0, "hidden width (0 = preset)")
	f.IntVar(&opts.Overrides.Layers, "layers", 0, "number of repeated blocks (0 = preset)")
	f.IntVar(&opts.Overrides.Heads, "heads", 0, "attention heads (0 = preset)")
	f.IntVar(&opts.Overrides.Classes, "classes", 0, "classifier outputs (0 = preset)")
	return c
}

func modelsExportRun(o *modelsExportOptions) error {
	start := time.Now()
	m, err := models.Build(o.Name, o.Preset, o.Overrides)
	if err != nil {
		return usageError{err}
	}
	if err := onnx.WriteFile(o.Output, m); err != nil {
		return fmt.Errorf("writing %s: %w", o.Output, err)
	}
	g := m.Graph
	fmt.Fprintf(o.IO.Out, "wrote %s: %s (%s), %d nodes, %s parameters, %s FLOPs, in %v\n", o.Output, o.Name, o.Preset,
		len(g.Nodes), humanCount(float64(models.Params(g))), humanCount(float64(graph.FLOPs(g))), time.Since(start).Round(time.Millisecond))
	return nil
}
