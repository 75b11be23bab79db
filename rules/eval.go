package rules

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// env supplies the values names refer to while evaluating expressions.
type env struct {
	m    *Match        // variables and source nodes
	tgt  []*graph.Node // target nodes built so far, by PNode index
	syms []Value       // dimension symbols (instantiation)
}

// eval evaluates x.
func (en *env) eval(x *Expr) (Value, error) {
	v, err := en.eval1(x)
	if err != nil {
		return Value{}, err
	}
	if x.Type != KInvalid && v.Kind != x.Type && assignable(v.Kind, x.Type) {
		v = v.convert(x.Type)
	}
	return v, nil
}

func (en *env) eval1(x *Expr) (Value, error) {
	switch x.Op {
	case ELit:
		return x.Lit, nil
	case EName:
		return en.name(x)
	case ECall:
		args := make([]Value, len(x.Args))
		for i, a := range x.Args {
			v, err := en.eval(a)
			if err != nil {
				return Value{}, err
			}
			if v.Unset {
				return Value{}, fmt.Errorf("%s: argument %d is unset", x.Name, i+1)
			}
			if k := x.Func.Args[i]; v.Kind != k {
				v = v.convert(k)
			}
			args[i] = v
		}
		v, err := x.Func.Eval(args)
		if err != nil {
			return Value{}, fmt.Errorf("%s: %w", x.Name, err)
		}
		return v, nil
	case EList:
		var ints []int64
		var floats []float64
		for _, a := range x.Args {
			v, err := en.eval(a)
			if err != nil {
				return Value{}, err
			}
			ints = append(ints, v.Int)
			floats = append(floats, v.asFloat())
		}
		if x.Type == KFloats {
			return floatsVal(floats), nil
		}
		if ints == nil {
			ints = []int64{}
		}
		return intsVal(ints), nil
	case ERecord:
		rec := graph.Attrs{}
		for i, name := range x.Fields {
			v, err := en.eval(x.Args[i])
			if err != nil {
				return Value{}, err
			}
			a, err := valueToAttr(v, attrKindOf(x.Args[i].Type))
			if err != nil {
				return Value{}, fmt.Errorf("record field %s: %w", name, err)
			}
			rec[name] = a
		}
		return Value{Kind: KRecord, Rec: rec}, nil
	case EUnary:
		v, err := en.eval(x.Args[0])
		if err != nil {
			return Value{}, err
		}
		switch {
		case x.Name == "!":
			return boolVal(!v.Bool), nil
		case v.Kind == KInt:
			return intVal(-v.Int), nil
		}
		return floatVal(-v.Float), nil
	case EBinary:
		return en.binary(x)
	case EIn:
		v, err := en.eval(x.Args[0])
		if err != nil {
			return Value{}, err
		}
		for _, a := range x.Args[1:] {
			w, err := en.eval(a)
			if err != nil {
				return Value{}, err
			}
			if v.Equal(w) {
				return boolVal(true), nil
			}
		}
		return boolVal(false), nil
	}
	return Value{}, fmt.Errorf("bad expression")
}

// attrKindOf maps a value kind to the attribute kind that stores it.
func attrKindOf(k Kind) graph.AttrKind {
	switch k {
	case KInt:
		return graph.AttrInt
	case KFloat:
		return graph.AttrFloat
	case KString:
		return graph.AttrString
	case KInts:
		return graph.AttrInts
	case KFloats:
		return graph.AttrFloats
	}
	return graph.AttrUndefined
}

// name evaluates a resolved name.
func (en *env) name(x *Expr) (Value, error) {
	switch {
	case x.Var != nil:
		if en.m == nil {
			return Value{}, fmt.Errorf("%s is not bound", x.Name)
		}
		if x.Var.Kind == TensorVar {
			t := en.m.Values[x.Var.Index]
			if t == nil {
				return Value{}, fmt.Errorf("%s is not bound", x.Name)
			}
			return tensorVal(t), nil
		}
		return en.m.Attrs[x.Var.Index], nil
	case x.Node != nil:
		var n *graph.Node
		if x.Node.target {
			if x.Node.Index < len(en.tgt) {
				n = en.tgt[x.Node.Index]
			}
		} else if en.m != nil {
			n = en.m.Nodes[x.Node.Index]
		}
		if n == nil || x.Output >= len(n.Outputs) || n.Outputs[x.Output] == nil {
			return Value{}, fmt.Errorf("%s is not available", x.Name)
		}
		return tensorVal(n.Outputs[x.Output]), nil
	case x.Sym != nil:
		if x.Sym.Index < len(en.syms) {
			return en.syms[x.Sym.Index], nil
		}
	}
	return Value{}, fmt.Errorf("%s is not bound", x.Name)
}

func (en *env) binary(x *Expr) (Value, error) {
	a, err := en.eval(x.Args[0])
	if err != nil {
		return Value{}, err
	}
	b, err := en.eval(x.Args[1])
	if err != nil {
		return Value{}, err
	}
	switch x.Name {
	case "==":
		return boolVal(a.Equal(b)), nil
	case "!=":
		return boolVal(!a.Equal(b)), nil
	}
	if a.Unset || b.Unset {
		return Value{}, fmt.Errorf("operator %s on an unset value", x.Name)
	}
	if a.Kind == KInt && b.Kind == KInt {
		if x.Name == "/" && b.Int == 0 {
			return Value{}, fmt.Errorf("division by zero")
		}
		return arith(x.Name, a.Int, b.Int, intVal)
	}
	return arith(x.Name, a.asFloat(), b.asFloat(), floatVal)
}

// arith applies the arithmetic or ordering operator op to p and q; num
// makes the Value of an arithmetic result.
func arith[T int64 | float64](op string, p, q T, num func(T) Value) (Value, error) {
	switch op {
	case "+":
		return num(p + q), nil
	case "-":
		return num(p - q), nil
	case "*":
		return num(p * q), nil
	case "/":
		return num(p / q), nil
	case "<":
		return boolVal(p < q), nil
	case "<=":
		return boolVal(p <= q), nil
	case ">":
		return boolVal(p > q), nil
	case ">=":
		return boolVal(p >= q), nil
	}
	return Value{}, fmt.Errorf("bad operator %s", op)
}
