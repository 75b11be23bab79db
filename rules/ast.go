package rules

import "github.com/xrl-dev/xrl/graph"

// Set is a parsed and checked collection of rules.
type Set struct {
	// Rules in file order.
	Rules  []*Rule
	byName map[string]*Rule
}

// Lookup returns the rule with the given name, or nil.
func (s *Set) Lookup(name string) *Rule {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// Rule is one rewrite rule: wherever Source matches (and every condition
// holds), the values of Source.Outputs may be replaced by the values of
// Target.Outputs, position by position.
type Rule struct {
	Name string
	Pos  Pos
	// Group is the heading ("// == Title") the rule appears under.
	Group string
	// Doc is the text of the comment lines directly above the rule.
	Doc string
	// Taso lists the numbers of the substitutions of TASO's generated set
	// (shared/reference/taso_generated_rules.txt) this rule realises.
	Taso   []int
	Source *Pattern
	Target *Pattern
	// Conds must all evaluate to true on a match (bool expressions).
	Conds []*Expr
	// Vars holds every variable, in order of first appearance in the source
	// (tensor, attribute and record variables); Var.Index is the position.
	Vars []*Var
	// Symbols are the dimension symbols of the shape templates.
	Symbols []*Symbol
	// Plan is the order in which a matcher should find the source ops.
	Plan []Step
	// Disconnected reports a source made of parts that share no variable
	// (for example two independent Relus): a matcher must enumerate
	// combinations of nodes, which can produce many candidates.
	Disconnected bool
}

// VarKind says what a variable stands for.
type VarKind uint8

const (
	// TensorVar stands for a graph value (an input of the matched ops).
	TensorVar VarKind = iota
	// AttrVar stands for an attribute value, or the values of a constant
	// input written in brackets (Split's split, Reshape's shape ...).
	AttrVar
	// RecordVar stands for all attributes of an op the pattern does not
	// mention ("..c").
	RecordVar
)

// Var is a variable of a rule.
type Var struct {
	Name  string
	Kind  VarKind
	Type  Kind // value kind of an AttrVar (KInt, KInts ...); KTensor, KRecord otherwise
	Index int
	Pos   Pos
	// Template is the shape template of a TensorVar: the matcher requires
	// a bound value to fit it, and the verifier draws shapes from it.
	Template *Template
	// Range is the value-range assumption declared after the template
	// ("pos", "nonneg"): the matcher proves it at every match (from a
	// constant's data or the producing op) and the verifier draws data
	// inside it.
	Range Range
	// Domain lists the values the verifier tries for an AttrVar or a
	// RecordVar (expressions over dimension symbols).
	Domain []*Expr
	// DomainPos is where the domain was declared.
	DomainPos Pos
	// recOp and recNamed describe the ops a RecordVar captures: all
	// attributes of recOp except recNamed.
	recOp    string
	recNamed []string
}

// Template is a shape template such as [n, c, h, w] or [*b, m, k].
type Template struct {
	Pos  Pos
	Dims []*TDim
}

// TDim is one entry of a template: a segment of any number of dimensions
// ("*b", the same wherever the name recurs) or one dimension given by an
// int expression over symbols (usually a single symbol or a literal).
type TDim struct {
	Seg  *Symbol
	Expr *Expr
}

// Symbol is a dimension symbol (or segment symbol) of the templates.
type Symbol struct {
	Name  string
	IsSeg bool
	Pos   Pos
	// Domain lists the values the verifier draws from (ints for a
	// dimension, lengths for a segment); empty means the default.
	Domain []*Expr
	Index  int
}

// Pattern is one side of a rule: ops over variables.
type Pattern struct {
	// Nodes in post-order: every node comes after the nodes its arguments
	// refer to.
	Nodes []*PNode
	// Outputs are the values the side provides, in order; source output i
	// is replaced by target output i.
	Outputs []Ref
}

// RefKind says what an argument refers to.
type RefKind uint8

const (
	// RefVar is a tensor variable.
	RefVar RefKind = iota
	// RefNode is output Output of node Node of the same side.
	RefNode
	// RefConst is a new constant computed from Const (targets only).
	RefConst
)

// Ref is an argument of an op or an output of a side.
type Ref struct {
	Kind   RefKind
	Var    *Var
	Node   *PNode
	Output int
	Const  *Expr
	// ConstShape optionally gives the shape of a RefConst (default: a
	// scalar for a number, 1-D for a list).
	ConstShape *Expr
	Pos        Pos
}

// PNode is one op of a pattern.
type PNode struct {
	Index  int
	Pos    Pos
	Op     string
	Schema *graph.OpSchema
	// Label is the node's name in the rule ("s" in s:Split(...)), or "".
	Label string
	// Args are the tensor arguments in order; ArgInput[i] is the input
	// position of Args[i] (constant inputs written in brackets take the
	// other positions).
	Args     []Ref
	ArgInput []int
	// Attrs are the attributes and bracketed constant inputs, sorted by
	// name.
	Attrs []*AttrArg
	// Rest is the record variable capturing the unmentioned attributes, or
	// nil (then unmentioned attributes must have their default value).
	Rest *Var
	// NumInputs is the number of input positions (absent optional inputs
	// in between are nil).
	NumInputs int
	// NumOutputs is one more than the largest output index referred to.
	NumOutputs int
	// Commutative marks a two-argument op whose schema is commutative: a
	// matcher tries both argument orders.
	Commutative bool
	// target marks nodes of a rule's target side.
	target bool
}

// AttrArg is an attribute (or a constant input written as one) of a node.
type AttrArg struct {
	Name string
	Pos  Pos
	// Param marks a constant input (input number Input) rather than an
	// attribute.
	Param bool
	Input int
	// Type is the value kind expected (from the schema).
	Type  Kind
	Value *Expr
}

// StepKind says how a matcher finds the node of a plan step.
type StepKind uint8

const (
	// StepScan enumerates every graph node with the op.
	StepScan StepKind = iota
	// StepProducer takes the producer of an already bound value: output
	// Output of this node is the value bound to Ref (a node output of an
	// earlier step's node).
	StepProducer
	// StepConsumer enumerates the consumers of an already bound value
	// (Ref), which this node reads as argument Arg (either argument of a
	// commutative node).
	StepConsumer
)

// Step is one step of a matching plan.
type Step struct {
	Kind StepKind
	// Node is the source node found by this step.
	Node *PNode
	// From is the already matched reference the step starts from
	// (StepProducer, StepConsumer).
	From Ref
	// Arg is the argument position of From in Node (StepConsumer).
	Arg int
}
