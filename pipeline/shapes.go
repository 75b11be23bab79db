package pipeline

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/verify"
)

// Interface is what a model declares about its inputs and outputs before
// any binding: their shapes with symbolic dimensions, and the size each
// symbol has at the tuning binding. A written model keeps the original's
// interface (Start.Writable), and is verified at other bindings of its
// symbols (Start.VerifyShapes).
type Interface struct {
	// Inputs and Outputs map names to declared shapes (absent when the
	// model declares none).
	Inputs, Outputs map[string]graph.Shape
	// Symbols maps each symbolic dimension of the inputs to its size at
	// the tuning binding; Leading marks the symbols that are some input's
	// first dimension (a batch).
	Symbols map[string]int64
	Leading map[string]bool
}

// declaredInterface records m's declared input and output shapes; m is
// not bound yet.
func declaredInterface(m *graph.Model) *Interface {
	it := &Interface{Inputs: map[string]graph.Shape{}, Outputs: map[string]graph.Shape{}, Symbols: map[string]int64{}, Leading: map[string]bool{}}
	for _, v := range m.Graph.Inputs {
		if v != nil && v.Const == nil && v.ShapeKnown {
			it.Inputs[v.Name] = v.Shape.Clone()
		}
	}
	for _, v := range m.Graph.Outputs {
		if v != nil && v.ShapeKnown {
			it.Outputs[v.Name] = v.Shape.Clone()
		}
	}
	return it
}

// learnSymbols records the size of each symbol of the bound inputs of g
// (bound with graph.BindOptions.KeepSymbols).
func (it *Interface) learnSymbols(g *graph.Graph) {
	for _, v := range g.Inputs {
		if v == nil || v.Const != nil {
			continue
		}
		for i, d := range v.Shape {
			if !d.Symbolic() {
				continue
			}
			name := d.ParamName()
			it.Symbols[name] = d.Value
			if i == 0 {
				it.Leading[name] = true
			}
		}
	}
}

// Dynamic reports whether the model has symbolic input dimensions.
func (it *Interface) Dynamic() bool { return it != nil && len(it.Symbols) > 0 }

// Writable returns m as it is written: when s keeps the original's
// interface, a copy whose inputs and outputs declare the original's shapes
// (symbolic dimensions by their names), the same copy at every call for
// one m; m itself when s is specialised. Callers do not change it.
func (s *Start) Writable(m *graph.Model) *graph.Model {
	if !s.Interface.Dynamic() {
		return m
	}
	s.writableMu.Lock()
	defer s.writableMu.Unlock()
	if w, ok := s.writable[m]; ok {
		return w
	}
	if s.writable == nil {
		s.writable = map[*graph.Model]*graph.Model{}
	}
	w := s.declare(m)
	s.writable[m] = w
	return w
}

// declare returns a copy of m declaring the original's inputs and
// outputs (Writable, made once for each model).
func (s *Start) declare(m *graph.Model) *graph.Model {
	c := *m
	c.Graph = m.Graph.Clone()
	redeclare := func(vs []*graph.Value, decl map[string]graph.Shape) {
		for _, v := range vs {
			if v == nil || v.Const != nil {
				continue
			}
			if d, ok := decl[v.Name]; ok {
				v.Shape = d.Clone()
			}
		}
	}
	redeclare(c.Graph.Inputs, s.Interface.Inputs)
	redeclare(c.Graph.Outputs, s.Interface.Outputs)
	return &c
}

// ShapeBinding is one assignment of sizes to a model's symbolic dimensions.
type ShapeBinding map[string]int64

// String renders the binding as "batch=3 seq=7".
func (b ShapeBinding) String() string {
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, b[k])
	}
	return strings.Join(parts, " ")
}

// VerifyBindings returns the bindings a written model is checked at besides
// the tuning one: each symbol in turn, the others at their tuning sizes,
// takes a batch symbol's 1, 2, 3 and 8, or a sequence-like symbol's 1, 7,
// half and twice its tuning size (each without the tuning size itself).
func (it *Interface) VerifyBindings() []ShapeBinding {
	names := make([]string, 0, len(it.Symbols))
	for k := range it.Symbols {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []ShapeBinding
	for _, name := range names {
		t := it.Symbols[name]
		vals := []int64{1, 7, t / 2, 2 * t}
		if it.Leading[name] {
			vals = []int64{1, 2, 3, 8}
		}
		slices.Sort(vals)
		for _, v := range slices.Compact(vals) {
			if v < 1 || v == t {
				continue
			}
			b := ShapeBinding{}
			for k, x := range it.Symbols {
				b[k] = x
			}
			b[name] = v
			out = append(out, b)
		}
	}
	return out
}

// inputShapes returns the input shapes binding b gives the declared
// inputs, for graph.BindShapes.
func (it *Interface) inputShapes(b ShapeBinding) map[string][]int {
	out := map[string][]int{}
	for name, s := range it.Inputs {
		dims := make([]int, len(s))
		for i, d := range s {
			switch {
			case d.Known():
				dims[i] = int(d.Value)
			case d.Param != "":
				dims[i] = int(b[d.Param])
			default:
				dims[i] = int(b[fmt.Sprintf("%s_dim%d", name, i)])
			}
		}
		out[name] = dims
	}
	return out
}

// VerifyShapes checks the model that will be written against the original
// at every binding of VerifyBindings, on the runtimes Verify uses (one
// input set each; the Go executor not at even sizes larger than the
// tuning shape, see runtimesAt), printing one line a binding to w. A binding the
// original itself does not take (a position table shorter than the
// sequence, say) is reported and skipped. It returns ErrNotEquivalent when
// the written model fails to load, bind or match the original at a binding
// the original runs at.
func (s *Start) VerifyShapes(w io.Writer, out *graph.Model, tol float64, seed uint64) error {
	if !s.Interface.Dynamic() {
		return nil
	}
	written := s.Writable(out)
	data, err := onnx.Encode(written)
	if err != nil {
		return fmt.Errorf("encoding the optimised model: %w", err)
	}
	// The run's pooled backends when it keeps sessions. ONNX Runtime runs
	// both models as declared at every binding: one session of each
	// serves them all.
	newBackend := s.sessionBackend()
	if newBackend == nil {
		newBackend = func(name string) (measure.Backend, error) { return measure.NewBackend(name, measure.BackendOptions{}) }
	}
	var shared *declaredSessions
	if be, err := newBackend("ort"); err == nil {
		shared = newDeclaredSessions(be)
		defer shared.Close()
	}
	for _, b := range s.Interface.VerifyBindings() {
		shapes := s.Interface.inputShapes(b)
		orig, err := s.declaredAt(shapes)
		if err != nil {
			fmt.Fprintf(w, "at %s: not checked, the original does not take this shape (%v)\n", b, err)
			continue
		}
		opt, err := writtenAt(data, shapes)
		if err != nil {
			if runsOnce(orig, seed) != nil {
				fmt.Fprintf(w, "at %s: not checked, the original does not take this shape either\n", b)
				continue
			}
			fmt.Fprintf(w, "at %s: the optimised model does not take this shape: %v\n", b, err)
			return ErrNotEquivalent
		}
		if shared != nil {
			shared.lend(orig, s.Declared)
			shared.lend(opt, written)
		}
		if err := verifyAt(w, b, s.runtimesAt(b, orig), orig, opt, tol, seed, newBackend, shared); err != nil {
			return err
		}
	}
	return nil
}

// declaredAt returns the original as declared, bound at shapes.
func (s *Start) declaredAt(shapes map[string][]int) (*graph.Model, error) {
	orig := s.Declared.Clone()
	if err := orig.Graph.BindShapes(shapes); err != nil {
		return nil, err
	}
	return orig, nil
}

// writtenAt decodes data, the written model (Start.Writable) encoded,
// and binds it at shapes.
func writtenAt(data []byte, shapes map[string][]int) (*graph.Model, error) {
	opt, err := onnx.Decode(data, onnx.DecodeOptions{})
	if err != nil {
		return nil, err
	}
	if err := opt.Graph.BindShapes(shapes); err != nil {
		return nil, err
	}
	return opt, nil
}

// verifyAt is Verify at one binding on runtimes, on one input set, with
// the binding named in each line, on the backends newBackend gives;
// shared (nil: none) lends ONNX Runtime its sessions of the declared
// models.
func verifyAt(w io.Writer, b ShapeBinding, runtimes []string, orig, out *graph.Model, tol float64, seed uint64, newBackend func(string) (measure.Backend, error), shared *declaredSessions) error {
	opts := verify.Options{Seeds: 1, FirstSeed: seed, Tolerance: tol, Backend: newBackend}
	if shared != nil {
		opts.Backend = func(name string) (measure.Backend, error) {
			if name == shared.Name() {
				return shared, nil
			}
			return newBackend(name)
		}
	}
	results, err := verify.Runtimes(runtimes, orig, out, opts)
	if err != nil {
		// Whether the original runs here is asked only now: on ViT-B/16
		// a session of it costs 1.5 s a binding.
		if rerr := runsOnce(orig, seed); rerr != nil {
			fmt.Fprintf(w, "at %s: not checked, the original does not run at this shape (%v)\n", b, rerr)
			return nil
		}
	}
	for _, r := range results {
		fmt.Fprintf(w, "at %s: %v\n", b, r)
		if r.Skipped == nil && !r.Result.OK {
			return ErrNotEquivalent
		}
	}
	if err != nil {
		// The original ran at this binding (runsOnce): the optimised
		// model fails where it does not.
		fmt.Fprintf(w, "at %s: the optimised model does not run: %v\n", b, err)
		return ErrNotEquivalent
	}
	return nil
}

// runsOnce runs m once on random inputs on the default backend.
func runsOnce(m *graph.Model, seed uint64) error {
	_, sess, in, err := openDefault(m, measure.BackendOptions{}, seed)
	if err != nil {
		return err
	}
	defer sess.Close()
	_, err = sess.Run(in)
	return err
}

// openDefault is loadWithInputs on the default backend, built with bo.
func openDefault(m *graph.Model, bo measure.BackendOptions, seed uint64) (measure.Backend, measure.Session, map[string]*graph.Tensor, error) {
	be, err := measure.NewBackend(measure.DefaultBackendName(), bo)
	if err != nil {
		return nil, nil, nil, err
	}
	sess, in, err := loadWithInputs(be, m, seed)
	return be, sess, in, err
}

// loadWithInputs loads m on be and draws random inputs for it from seed.
func loadWithInputs(be measure.Backend, m *graph.Model, seed uint64) (measure.Session, map[string]*graph.Tensor, error) {
	sess, err := be.Load(m)
	if err != nil {
		return nil, nil, err
	}
	in, err := measure.RandomInputs(m.Graph, seed)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	return sess, in, nil
}

// reportInterface says to w whether the written model keeps the model's
// symbolic dimensions, and their tuning sizes.
func reportInterface(w io.Writer, s *Start) {
	switch {
	case s.Interface == nil:
		fmt.Fprintln(w, "interface: specialised: the written model declares the bound input shapes")
		return
	case !s.Interface.Dynamic():
		fmt.Fprintln(w, "interface: the model's inputs have fixed shapes")
		return
	}
	fmt.Fprintf(w, "interface: the written model keeps the symbolic dimensions; tuning at %s, verified at other sizes too\n", ShapeBinding(s.Interface.Symbols))
	if len(s.Sweep) > 1 {
		var shapes []string
		for _, b := range s.Sweep {
			shapes = append(shapes, b.String())
		}
		fmt.Fprintf(w, "never slower at: %s\n", strings.Join(shapes, "; "))
	}
}
