package pipeline

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
	"github.com/xrl-dev/xrl/internal/sysmem"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules/ruleverify"
	"github.com/xrl-dev/xrl/verify"
)

// ReadModel reads an ONNX file, with an error naming the file.
func ReadModel(path string) (*graph.Model, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := onnx.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := onnx.CheckOpset(m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// LoadBound reads a model, binds its input shapes (input name -> dims;
// unbound leading dimensions default to 1) and infers every shape, so that
// the model can be executed or rewritten.
func LoadBound(path string, shapes map[string][]int) (*graph.Model, error) {
	return LoadBoundWith(path, shapes, graph.BindOptions{})
}

// LoadBoundWith is LoadBound with binding options.
func LoadBoundWith(path string, shapes map[string][]int, bo graph.BindOptions) (*graph.Model, error) {
	m, err := ReadModel(path)
	if err != nil {
		return nil, err
	}
	return bindModel(path, m, shapes, bo)
}

// bindModel binds and checks m, read from path.
func bindModel(path string, m *graph.Model, shapes map[string][]int, bo graph.BindOptions) (*graph.Model, error) {
	if _, err := measure.BindShapesWith(m, shapes, bo); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.Graph.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := sysmem.CheckGraph(m.Graph); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// UnknownRuleError reports a rule name that the rule set does not hold.
type UnknownRuleError struct{ Name string }

func (e *UnknownRuleError) Error() string {
	return fmt.Sprintf("no rule named %q (see 'xrl rules list')", e.Name)
}

// NewEngine loads the rule set, optionally restricted to names, with
// candidates capped at twice nodes (as TASO), folding with the Go executor.
func NewEngine(names []string, nodes int) (*rewrite.Engine, error) {
	return NewEngineWith(RuleChoice{Names: names}, nodes)
}

// RuleChoice says which rules an engine uses: the shipped set, extended by
// the rules of File (a user's .rules file; each of its rules must pass
// verification or nothing runs), restricted to Names when not empty.
type RuleChoice struct {
	Names []string
	File  string
}

// NewEngineWith is NewEngine for a RuleChoice.
func NewEngineWith(rc RuleChoice, nodes int) (*rewrite.Engine, error) {
	names := rc.Names
	var files []string
	if rc.File != "" {
		files = []string{rc.File}
	}
	set, err := ruleverify.LoadWith(files, ruleverify.Options{})
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if set.Lookup(n) == nil {
			return nil, &UnknownRuleError{Name: n}
		}
	}
	if len(names) == 0 {
		names = set.DefaultNames()
	}
	return rewrite.NewEngine(set, rewrite.Options{Rules: names, MaxNodes: 2 * nodes, Eval: executor.Evaluate}), nil
}

// Start is what every optimising command begins from.
type Start struct {
	// Name names the model in messages (its file, or its zoo name).
	Name string
	// Orig is the bound original model: the reference for verification
	// and the template of the written model.
	Orig *graph.Model
	// Model is Orig with its constant subgraphs folded: the graph that is
	// searched and measured.
	Model *graph.Model
	// Engine proposes the rewrites: the rule engine, preceded by the
	// whole-graph passes (rewrite.Passes) chosen.
	Engine rewrite.Rewriter
	// Declared is the original as read, before binding, and Interface
	// its declared inputs and outputs with the tuning sizes of its
	// symbols; both are nil when the start is specialised to its binding
	// (then the written model declares the bound shapes).
	Declared  *graph.Model
	Interface *Interface
	// Sweep lists the shapes never-slower decides on, the tuning shape
	// first (see Interface.DefaultSweep, ParseSweep); nil or one shape:
	// the tuning shape only.
	Sweep []ShapeBinding
	// defaultSweep is set when Sweep is DefaultSweep's: its batch shape
	// is then bounded by the original's latency (boundSweep).
	defaultSweep bool

	measuring bench
	sessions  *measure.SessionPool // nil: each use loads its own (UseSessionPool)
	swept     []SweepRow           // the last shape sweep's measurements
	sweepTime time.Duration        // and the time it took
	// passChecks are the float64 checks of whole-graph passes, shared
	// by the engine's and the measured passes (nil: each check its own).
	passChecks *passChecks
	// Inputs are the user's own input sets (inputs.Read): the written
	// model is verified on them too (VerifyInputs).
	Inputs []inputs.Set
	// writable holds the model Writable made of each model, so that the
	// verification at other shapes, never-slower and the sweep time one
	// model, and a run's session pool loads it once.
	writable   map[*graph.Model]*graph.Model
	writableMu sync.Mutex
	// reference keeps the original's outputs between verifications
	// (verify.Outputs), made on first use.
	reference     *verify.Outputs
	referenceOnce sync.Once
}

// Prepare loads and binds the model at path, builds the rule engine
// (restricted to ruleNames when not empty) and folds the model's constants.
func Prepare(path string, shapes map[string][]int, ruleNames []string) (*Start, error) {
	return PrepareWith(path, shapes, RuleChoice{Names: ruleNames})
}

// PrepareWith is Prepare for a RuleChoice.
func PrepareWith(path string, shapes map[string][]int, rc RuleChoice) (*Start, error) {
	orig, err := LoadBound(path, shapes)
	if err != nil {
		return nil, err
	}
	return prepareModel(path, orig, rc)
}

// PrepareDynamic is PrepareWith for a start that keeps the model's
// interface: its symbolic dimensions are bound at the tuning sizes shapes
// gives (graph.BindOptions.KeepSymbols), rewrites must hold at every size,
// and the written model declares the original's inputs and outputs
// (Start.Writable, checked by Start.VerifyShapes).
func PrepareDynamic(path string, shapes map[string][]int, rc RuleChoice) (*Start, error) {
	m, err := ReadModel(path)
	if err != nil {
		return nil, err
	}
	declared := m.Clone()
	orig, err := bindModel(path, m, shapes, graph.BindOptions{KeepSymbols: true})
	if err != nil {
		return nil, err
	}
	s, err := prepareModel(path, orig, rc)
	if err != nil {
		return nil, err
	}
	s.Declared = declared
	s.Interface = declaredInterface(declared)
	s.Interface.learnSymbols(orig.Graph)
	return s, nil
}

// PrepareModel is Prepare for a model already in memory with its shapes
// bound; name is used in error messages.
func PrepareModel(name string, orig *graph.Model, ruleNames []string) (*Start, error) {
	return prepareModel(name, orig, RuleChoice{Names: ruleNames})
}

func prepareModel(name string, orig *graph.Model, rc RuleChoice) (*Start, error) {
	passes, ruleNames := splitPassNames(rc.Names)
	if len(rc.Names) > 0 && len(ruleNames) == 0 {
		// Only passes were named: the engine keeps one harmless rule, as an
		// empty name list would mean every rule.
		ruleNames = []string{"identity-elim"}
	}
	rc.Names = ruleNames
	rules, err := NewEngineWith(rc, len(orig.Graph.Nodes))
	if err != nil {
		return nil, err
	}
	folded, _, err := rewrite.Fold(orig.Graph, executor.Evaluate)
	if err != nil {
		return nil, fmt.Errorf("%s: folding constants: %w", name, err)
	}
	start := *orig
	start.Graph = folded
	checks := newPassChecks()
	eng, err := withPasses(rules, passes, checks.check(1))
	if err != nil {
		return nil, err
	}
	return &Start{Name: name, Orig: orig, Model: &start, Engine: eng, passChecks: checks}, nil
}
