package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/train"
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

// loadBound reads a model, binds its input shapes from the --shape flags
// and infers every shape, so that it can be executed or rewritten.
func loadBound(path string, shapes *shapeOptions) (*graph.Model, error) {
	bind, err := shapes.bindings()
	if err != nil {
		return nil, err
	}
	return pipeline.LoadBound(path, bind)
}

// prepareStart is pipeline.Prepare with the --shape and --rules flags.
func prepareStart(path string, shapes *shapeOptions, ruleNames []string) (*pipeline.Start, error) {
	bind, err := shapes.bindings()
	if err != nil {
		return nil, err
	}
	sp, err := pipeline.Prepare(path, bind, ruleNames)
	return sp, flagError(err)
}

// flagError names the flag behind a pipeline error: an unknown rule is a
// usage error of --rules, an unreadable policy an error of --agent; a
// training setting that conflicts with the run or the models is a usage
// error; unreadable input sets are an error of --inputs.
func flagError(err error) error {
	var unknown *pipeline.UnknownRuleError
	var policy *pipeline.PolicyError
	var conflict *train.ConfigError
	var sets *pipeline.InputsError
	switch {
	case errors.As(err, &unknown):
		return usagef("--rules: %v", unknown)
	case errors.As(err, &policy):
		return fmt.Errorf("--agent: %w", policy.Err)
	case errors.As(err, &conflict):
		return usageError{err}
	case errors.As(err, &sets):
		return fmt.Errorf("--inputs: %w", sets.Err)
	}
	return err
}
