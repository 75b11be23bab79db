package rules

import (
	"fmt"
	"slices"
	"sort"
)

// Func is a named function of the rules language: a predicate used in
// conditions (isScalar(s), sameShape(a, b)) or a computation used for
// target attributes (composePerm(p, q), dim(w, 0)).
type Func struct {
	Name string
	// Doc states what the function returns, in one sentence.
	Doc    string
	Args   []Kind // KTensor for graph values
	Result Kind
	Eval   func(args []Value) (Value, error)
}

// funcTable holds every function by name.
var funcTable = map[string]*Func{}

func register(name, doc string, result Kind, args []Kind, eval func(args []Value) (Value, error)) {
	if _, dup := funcTable[name]; dup {
		panic("rules: function " + name + " registered twice")
	}
	funcTable[name] = &Func{Name: name, Doc: doc, Args: args, Result: result, Eval: eval}
}

// Funcs returns every function of the rules language sorted by name.
func Funcs() []*Func {
	out := make([]*Func, 0, len(funcTable))
	for _, f := range funcTable {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupFunc returns the function with the given name, or nil.
func LookupFunc(name string) *Func { return funcTable[name] }

var (
	argT   = []Kind{KTensor}
	argTT  = []Kind{KTensor, KTensor}
	argTI  = []Kind{KTensor, KInt}
	argI   = []Kind{KInts}
	argII  = []Kind{KInts, KInts}
	argIT  = []Kind{KInts, KTensor}
	argTTI = []Kind{KTensor, KTensor, KInt}
)

// dimsOfPair returns the static shapes of the first two arguments.
func dimsOfPair(a []Value) (x, y []int64, err error) {
	if x, err = dimsOf(a[0]); err != nil {
		return nil, nil, err
	}
	y, err = dimsOf(a[1])
	return x, y, err
}

// dimsOf returns a graph value's static shape.
func dimsOf(v Value) ([]int64, error) {
	t := v.Tensor
	if t == nil {
		return nil, fmt.Errorf("no tensor")
	}
	if !t.ShapeKnown || !t.Shape.Static() {
		return nil, fmt.Errorf("value %q has no static shape", t.Name)
	}
	out := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		out[i] = d.Value
	}
	return out, nil
}

// axisOf normalises axis i of a rank-r shape.
func axisOf(i int64, r int) (int, error) {
	if i < 0 {
		i += int64(r)
	}
	if i < 0 || i >= int64(r) {
		return 0, fmt.Errorf("axis %d out of range for rank %d", i, r)
	}
	return int(i), nil
}

// isPerm reports whether p is a permutation of 0..len(p)-1.
func isPerm(p []int64) bool {
	seen := make([]bool, len(p))
	for _, x := range p {
		if x < 0 || x >= int64(len(p)) || seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

func init() {
	register("rank", "rank(t) is the number of dimensions of t.", KInt, argT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		return intVal(int64(len(d))), err
	})
	register("dim", "dim(t, i) is dimension i of t (negative i counts from the end).", KInt, argTI, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		if err != nil {
			return Value{}, err
		}
		ax, err := axisOf(a[1].Int, len(d))
		if err != nil {
			return Value{}, err
		}
		return intVal(d[ax]), nil
	})
	register("shape", "shape(t) is the list of t's dimensions.", KInts, argT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		return intsVal(d), err
	})
	register("numel", "numel(t) is the number of elements of t.", KInt, argT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		n := int64(1)
		for _, x := range d {
			n *= x
		}
		return intVal(n), err
	})
	register("isConst", "isConst(t) holds when t is a constant (an initializer or a folded value).", KBool, argT, func(a []Value) (Value, error) {
		return boolVal(a[0].Tensor != nil && a[0].Tensor.Const != nil), nil
	})
	register("isScalar", "isScalar(t) holds when t has one element and rank 0 or 1, so broadcasting it never changes another operand's shape.", KBool, argT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		return boolVal(err == nil && len(d) <= 1 && (len(d) == 0 || d[0] == 1)), err
	})
	register("sameShape", "sameShape(a, b) holds when a and b have the same shape.", KBool, argTT, func(a []Value) (Value, error) {
		x, y, err := dimsOfPair(a)
		return boolVal(err == nil && slices.Equal(x, y)), err
	})
	register("sameDimsExcept", "sameDimsExcept(a, b, i) holds when a and b have the same rank and agree on every dimension but i.", KBool, argTTI, func(a []Value) (Value, error) {
		x, err := dimsOf(a[0])
		if err != nil {
			return Value{}, err
		}
		y, err := dimsOf(a[1])
		if err != nil || len(x) != len(y) {
			return boolVal(false), err
		}
		ax, err := axisOf(a[2].Int, len(x))
		if err != nil {
			return boolVal(false), nil
		}
		for i := range x {
			if i != ax && x[i] != y[i] {
				return boolVal(false), nil
			}
		}
		return boolVal(true), nil
	})
	register("isIdentityPerm", "isIdentityPerm(p) holds when p is 0, 1, ..., len(p)-1.", KBool, argI, func(a []Value) (Value, error) {
		for i, x := range a[0].Ints {
			if x != int64(i) {
				return boolVal(false), nil
			}
		}
		return boolVal(true), nil
	})
	register("movesOnlyUnitAxes", "movesOnlyUnitAxes(p, t) holds when Transpose(perm=p) of t keeps the axes of size other than 1 in their order, so it moves no data and equals a Reshape.", KBool, argIT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[1])
		if err != nil {
			return Value{}, err
		}
		p := a[0].Ints
		if len(p) != len(d) || !isPerm(p) {
			return boolVal(false), nil
		}
		last := int64(-1)
		for _, ax := range p {
			if d[ax] != 1 {
				if ax < last {
					return boolVal(false), nil
				}
				last = ax
			}
		}
		return boolVal(true), nil
	})
	register("composePerm", "composePerm(p, q) is the perm of one Transpose equal to Transpose(perm=p) followed by Transpose(perm=q): r[i] = p[q[i]].", KInts, argII, func(a []Value) (Value, error) {
		p, q := a[0].Ints, a[1].Ints
		if len(p) != len(q) || !isPerm(p) || !isPerm(q) {
			return Value{}, fmt.Errorf("composePerm(%v, %v): not permutations of one rank", p, q)
		}
		r := make([]int64, len(q))
		for i, x := range q {
			r[i] = p[x]
		}
		return intsVal(r), nil
	})
	register("invPerm", "invPerm(p) is the inverse permutation of p.", KInts, argI, func(a []Value) (Value, error) {
		p := a[0].Ints
		if !isPerm(p) {
			return Value{}, fmt.Errorf("invPerm(%v): not a permutation", p)
		}
		r := make([]int64, len(p))
		for i, x := range p {
			r[x] = int64(i)
		}
		return intsVal(r), nil
	})
	register("isSwapLast2", "isSwapLast2(p) holds when p swaps the last two axes and keeps the others.", KBool, argI, func(a []Value) (Value, error) {
		p := a[0].Ints
		n := len(p)
		if n < 2 {
			return boolVal(false), nil
		}
		for i := 0; i < n-2; i++ {
			if p[i] != int64(i) {
				return boolVal(false), nil
			}
		}
		return boolVal(p[n-2] == int64(n-1) && p[n-1] == int64(n-2)), nil
	})
	register("swapLast2", "swapLast2(t) is the perm of rank(t) that swaps the last two axes.", KInts, argT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		if err != nil || len(d) < 2 {
			return Value{}, fmt.Errorf("swapLast2 needs rank >= 2")
		}
		return intsVal(swapLastTwo(len(d))), nil
	})
	register("permAxis", "permAxis(p, i) is the input axis that output axis i of Transpose(perm=p) reads: p[i] (negative i counts from the end).", KInt, []Kind{KInts, KInt}, listEntry)
	register("normAxis", "normAxis(t, i) is axis i of t as a non-negative number.", KInt, argTI, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		if err != nil {
			return Value{}, err
		}
		ax, err := axisOf(a[1].Int, len(d))
		return intVal(int64(ax)), err
	})
	register("kernelOdd", "kernelOdd(w) holds when every spatial size of the conv weight w [M, C, k...] is odd.", KBool, argT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		if err != nil || len(d) < 3 {
			return boolVal(false), err
		}
		for _, k := range d[2:] {
			if k%2 == 0 {
				return boolVal(false), nil
			}
		}
		return boolVal(true), nil
	})
	register("centeredPads", "centeredPads(w) is the Conv pads [(k-1)/2 ..., (k-1)/2 ...] that keep the spatial size for the weight w [M, C, k...] at stride 1.", KInts, argT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		if err != nil || len(d) < 3 {
			return Value{}, fmt.Errorf("centeredPads needs a conv weight")
		}
		sp := d[2:]
		out := make([]int64, 2*len(sp))
		for i, k := range sp {
			out[i], out[i+len(sp)] = (k-1)/2, (k-1)/2
		}
		return intsVal(out), nil
	})
	register("enlargePads", "enlargePads(w, big) is the Pad pads that zero-pad the conv weight w [M, C, k...] to the spatial size of big, centred (sizes must differ by even amounts).", KInts, argTT, func(a []Value) (Value, error) {
		w, b, err := dimsOfPair(a)
		if err != nil {
			return Value{}, err
		}
		if len(w) != len(b) || len(w) < 3 {
			return Value{}, fmt.Errorf("enlargePads: weights %v and %v differ in rank", w, b)
		}
		r := len(w)
		out := make([]int64, 2*r)
		for i := 2; i < r; i++ {
			diff := b[i] - w[i]
			if diff < 0 || diff%2 != 0 {
				return Value{}, fmt.Errorf("enlargePads: kernel %v cannot be centred in %v", w[2:], b[2:])
			}
			out[i], out[i+r] = diff/2, diff/2
		}
		return intsVal(out), nil
	})
	register("channelShape", "channelShape(w) is the Reshape shape [-1, 1, ..., 1] of rank(w) that lines a per-channel vector up with axis 0 of w.", KInts, argT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		if err != nil || len(d) < 1 {
			return Value{}, fmt.Errorf("channelShape needs rank >= 1")
		}
		out := repeat(1, len(d))
		out[0] = -1
		return intsVal(out), nil
	})
	register("spatialShape", "spatialShape(x) is the Reshape shape [-1, 1, ..., 1] of rank(x)-1 that lines a per-channel vector up with axis 1 of the NC... tensor x.", KInts, argT, func(a []Value) (Value, error) {
		d, err := dimsOf(a[0])
		if err != nil || len(d) < 2 {
			return Value{}, fmt.Errorf("spatialShape needs rank >= 2")
		}
		out := repeat(1, len(d)-1)
		out[0] = -1
		return intsVal(out), nil
	})
	register("isChannelVector", "isChannelVector(v, x) holds when v broadcasts against the NC... tensor x as one value per channel: shape [C, 1, ..., 1] with rank(x)-1 dimensions, or [1, C, 1, ...] of rank(x).", KBool, argTT, func(a []Value) (Value, error) {
		v, err := dimsOf(a[0])
		if err != nil {
			return Value{}, err
		}
		x, err := dimsOf(a[1])
		if err != nil || len(x) < 2 {
			return boolVal(false), err
		}
		c := x[1]
		switch len(v) {
		case len(x) - 1:
			if v[0] != c {
				return boolVal(false), nil
			}
			for _, d := range v[1:] {
				if d != 1 {
					return boolVal(false), nil
				}
			}
			return boolVal(true), nil
		case len(x):
			if v[0] != 1 || v[1] != c {
				return boolVal(false), nil
			}
			for _, d := range v[2:] {
				if d != 1 {
					return boolVal(false), nil
				}
			}
			return boolVal(true), nil
		}
		return boolVal(false), nil
	})
	register("cat", "cat(a, b) is the list a followed by b.", KInts, argII, func(a []Value) (Value, error) {
		return intsVal(append(append([]int64(nil), a[0].Ints...), a[1].Ints...)), nil
	})
	register("len", "len(l) is the number of entries of l.", KInt, argI, func(a []Value) (Value, error) {
		return intVal(int64(len(a[0].Ints))), nil
	})
	register("max", "max(a, b) is the larger of two ints.", KInt, []Kind{KInt, KInt}, func(a []Value) (Value, error) {
		return intVal(max(a[0].Int, a[1].Int)), nil
	})
	register("min", "min(a, b) is the smaller of two ints.", KInt, []Kind{KInt, KInt}, func(a []Value) (Value, error) {
		return intVal(min(a[0].Int, a[1].Int)), nil
	})
	register("allOnes", "allOnes(l) holds when every entry of l is 1 (unit strides or dilations).", KBool, argI, func(a []Value) (Value, error) {
		for _, x := range a[0].Ints {
			if x != 1 {
				return boolVal(false), nil
			}
		}
		return boolVal(true), nil
	})
	register("reshapeKeepsAxis", "reshapeKeepsAxis(s, x) holds when the Reshape shape s leaves the last axis of x and all its leading dimensions' product unchanged, i.e. s ends with dim(x, -1) (so ops along the last axis commute with it).", KBool, argIT, func(a []Value) (Value, error) {
		s := a[0].Ints
		d, err := dimsOf(a[1])
		if err != nil || len(s) == 0 || len(d) == 0 {
			return boolVal(false), err
		}
		return boolVal(s[len(s)-1] == d[len(d)-1]), nil
	})
	register("swapPerm", "swapPerm(r) is the perm of rank r that swaps the last two axes.", KInts, []Kind{KInt}, func(a []Value) (Value, error) {
		r := a[0].Int
		if r < 2 || r > 64 {
			return Value{}, fmt.Errorf("swapPerm(%d): rank must be 2 to 64", r)
		}
		return intsVal(swapLastTwo(int(r))), nil
	})
	register("at", "at(l, i) is entry i of the list l (negative i counts from the end).", KInt, []Kind{KInts, KInt}, listEntry)
	register("mod", "mod(a, b) is the remainder of a divided by b (b > 0).", KInt, []Kind{KInt, KInt}, func(a []Value) (Value, error) {
		if a[1].Int <= 0 {
			return Value{}, fmt.Errorf("mod by %d", a[1].Int)
		}
		return intVal(a[0].Int % a[1].Int), nil
	})
}

// swapLastTwo returns the permutation of rank r (at least 2) that swaps the
// last two axes.
func swapLastTwo(r int) []int64 {
	p := make([]int64, r)
	for i := range p {
		p[i] = int64(i)
	}
	p[r-2], p[r-1] = p[r-1], p[r-2]
	return p
}

// listEntry implements at(l, i) and permAxis(p, i): entry i of the list
// (negative i counts from the end).
func listEntry(a []Value) (Value, error) {
	l := a[0].Ints
	i, err := axisOf(a[1].Int, len(l))
	if err != nil {
		return Value{}, err
	}
	return intVal(l[i]), nil
}
