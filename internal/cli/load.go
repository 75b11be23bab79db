package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/xrl-dev/xrl/executor"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rewrite"
)

// shapeOptions holds the repeatable --shape flag.
type shapeOptions struct {
	Specs []string
}

func (o *shapeOptions) addFlags(c *cobra.Command) {
	c.Flags().StringArrayVar(&o.Specs, "shape", nil,
		"bind an input's shape, NAME=1x3x224x224 (repeatable); unbound leading dimensions default to 1")
}

// bindings parses the --shape values.
func (o *shapeOptions) bindings() (map[string][]int, error) {
	out := make(map[string][]int, len(o.Specs))
	for _, spec := range o.Specs {
		name, dims, ok := strings.Cut(spec, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, usagef("--shape %q: want NAME=DIMS, e.g. --shape input=1x3x224x224", spec)
		}
		shape, err := graph.ParseShape(dims)
		if err != nil {
			return nil, usagef("--shape %q: %v", spec, err)
		}
		name = strings.TrimSpace(name)
		if _, dup := out[name]; dup {
			return nil, usagef("--shape given twice for input %q", name)
		}
		out[name] = shape
	}
	return out, nil
}

// readModel reads an ONNX file, with an error naming the file.
func readModel(path string) (*graph.Model, error) {
	if _, err := os.Stat(path); err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no such file", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := onnx.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// loadBound reads a model, binds its input shapes and infers every shape,
// so that it can be executed or rewritten.
func loadBound(path string, shapes *shapeOptions) (*graph.Model, error) {
	bind, err := shapes.bindings()
	if err != nil {
		return nil, err
	}
	m, err := readModel(path)
	if err != nil {
		return nil, err
	}
	if _, err := measure.BindShapes(m, bind); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.Graph.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// startPoint is what every optimising command begins from: the bound
// original model, the same model with its constant subgraphs folded (the
// graph that is searched and measured), and the rewrite engine.
type startPoint struct {
	Orig, Start *graph.Model
	Engine      *rewrite.Engine
}

// prepareStart loads and binds a model, builds the rule engine (optionally
// restricted to ruleNames) and folds the model's constants.
func prepareStart(path string, shapes *shapeOptions, ruleNames []string) (*startPoint, error) {
	orig, err := loadBound(path, shapes)
	if err != nil {
		return nil, err
	}
	engine, err := newEngine(ruleNames, len(orig.Graph.Nodes))
	if err != nil {
		return nil, err
	}
	folded, _, err := rewrite.Fold(orig.Graph, executor.Evaluate)
	if err != nil {
		return nil, fmt.Errorf("%s: folding constants: %w", path, err)
	}
	start := *orig
	start.Graph = folded
	return &startPoint{Orig: orig, Start: &start, Engine: engine}, nil
}
