package rules

// ExprOp is the form of a value expression.
type ExprOp uint8

// Expression forms.
const (
	// ELit is a literal (Lit).
	ELit ExprOp = iota
	// EName is a name: a variable, a node label (optionally with an output
	// index) or a dimension symbol.
	EName
	// ECall calls the named function (Func) on Args.
	ECall
	// EList is a list literal [a, b, ...] of ints or floats.
	EList
	// ERecord is a record literal {name=value, ...} (Fields, Args).
	ERecord
	// EBinary applies operator Name (+ - * / == != < <= > >= &&) to Args.
	EBinary
	// EUnary applies operator Name (- !) to Args[0].
	EUnary
	// EIn tests whether Args[0] equals one of Args[1:].
	EIn
)

// Expr is a value expression: an attribute value in a pattern, a
// condition, or an instantiation value.
type Expr struct {
	Op  ExprOp
	Pos Pos
	Lit Value
	// Name is the identifier (EName), function (ECall) or operator
	// (EBinary, EUnary).
	Name string
	// Output is the output index of a node label reference ("s.1").
	Output int
	// HasOutput records that the output index was written.
	HasOutput bool
	Args      []*Expr
	Fields    []string
	// Type is the static kind, set by the checker.
	Type Kind
	// Resolved name (EName): exactly one is set.
	Var  *Var
	Node *PNode
	Sym  *Symbol
	// Func is the resolved function (ECall).
	Func *Func
}

// clone returns a deep copy of e (nil for nil).
func (e *Expr) clone() *Expr {
	if e == nil {
		return nil
	}
	c := *e
	c.Args = make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		c.Args[i] = a.clone()
	}
	c.Fields = append([]string(nil), e.Fields...)
	return &c
}
