package measure

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/atomicfile"
)

// CostOptions configures the cost model.
type CostOptions struct {
	// Base is the backend each operator configuration is timed on: "ort"
	// when ONNX Runtime is installed, else "go" (the default "").
	Base string
	// Backend holds the base backend's settings.
	Backend BackendOptions
	// Measure controls per-op timing (default: 3 warm-ups, then 8 to 32 runs; see costMeasure).
	Measure MeasureOptions
	// CacheFile, if set, persists per-op times across processes (JSON).
	CacheFile string
}

// costMeasure is how the cost model times an op configuration by
// default (in each of its sessions, see Measured): 3 warm-ups, then 8
// runs, continued in blocks of 8 up to 32 while their spread (MAD over
// median) stays above 5%, within 2 s, and no garbage collection before
// each op (MeasureOptions.KeepGarbage). TASO's cost model takes 8
// warm-ups and 32 runs. Four rounds of timing every op of ViT-B/16 and
// of the corpus encoder at one thread, alternating with that setting, took
// 2.1 s and 1.4 s a round against 4.3 s and 2.0 s; an op's time moved as
// much from round to round in both (a median of 6-7% and 6-10% weighted
// by op time, the model's sum by up to 11% and 4%): the machine's drift
// between rounds, not the number of runs (docs/perf.md, "The cost model's
// runs").
var costMeasure = MeasureOptions{Warmup: 3, Runs: 8, MaxRuns: 32, MaxTime: 2 * time.Second, KeepGarbage: true}

// CostModel estimates a model's latency as the sum of its operators'
// times, each operator configuration (op, attributes, input types and
// shapes, which inputs are constant) timed once in isolation on a real
// backend and cached by that signature. The fixed cost of one call into the
// backend (measured on a one-element Identity model) is subtracted from
// each op's time, so that a graph of many small ops is not charged that
// call cost once per op.
type CostModel struct {
	base    Backend
	measure MeasureOptions
	file    string

	overheadOnce sync.Once
	overhead     time.Duration
	overheadErr  error

	mu    sync.Mutex
	times map[string]time.Duration
	dirty bool

	// timing is held while an op is timed, so that each op
	// configuration is timed once: callers score candidates on several
	// goroutines, and two of them meeting the same new configuration
	// both timed it, one after the other (measureMu keeps timings from
	// overlapping).
	timing sync.Mutex
}

// NewCostModel returns a cost model timing ops on opts.Base.
func NewCostModel(opts CostOptions) (*CostModel, error) {
	name := opts.Base
	if name == "" {
		name = DefaultBackendName()
	}
	be, err := NewBackend(name, opts.Backend)
	if err != nil {
		return nil, err
	}
	mo := opts.Measure
	if mo.Runs == 0 {
		mo = costMeasure
	}
	cm := &CostModel{base: be, measure: mo, file: opts.CacheFile, times: make(map[string]time.Duration)}
	if cm.file != "" {
		if data, err := os.ReadFile(cm.file); err == nil {
			var ns map[string]int64
			if err := json.Unmarshal(data, &ns); err != nil {
				return nil, fmt.Errorf("cost cache %s: %w", cm.file, err)
			}
			for k, v := range ns {
				cm.times[k] = time.Duration(v)
			}
		} else if !os.IsNotExist(err) {
			return nil, fmt.Errorf("cost cache: %w", err)
		}
	}
	return cm, nil
}

// Name returns "cost".
func (c *CostModel) Name() string { return "cost" }

// Latency returns the summed per-op estimate as a Stats with N = number of
// nodes (no spread: the estimate is deterministic once ops are cached).
func (c *CostModel) Latency(m *graph.Model) (Stats, error) {
	var total time.Duration
	// Values computed from constants only are folded at export (and by
	// ONNX Runtime on load): nodes reading nothing else cost nothing.
	folded := map[*graph.Value]bool{}
	for _, n := range m.Graph.Nodes {
		if foldable(n, folded) {
			for _, o := range n.Outputs {
				folded[o] = true
			}
			continue
		}
		d, err := c.OpTime(m, n)
		if err != nil {
			return Stats{}, err
		}
		total += d
	}
	if err := c.save(); err != nil {
		return Stats{}, err
	}
	return Stats{N: len(m.Graph.Nodes), Median: total, P10: total, P90: total, Min: total, Stable: true}, nil
}

// Entries returns the number of cached op configurations.
func (c *CostModel) Entries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.times)
}

// OpTime returns the cached or freshly measured time of node n of m. A
// node whose inputs are all constants costs nothing: it is folded when
// the model is exported (and by ONNX Runtime when it loads a model).
func (c *CostModel) OpTime(m *graph.Model, n *graph.Node) (time.Duration, error) {
	if constantInputs(n) {
		return 0, nil
	}
	if shapeComputation(n) {
		return minOpTime, nil
	}
	key := opSignature(n)
	c.mu.Lock()
	d, ok := c.times[key]
	c.mu.Unlock()
	if ok {
		return d, nil
	}
	single, err := singleOpModel(m, n)
	if err != nil {
		return 0, err
	}
	if len(single.Graph.Inputs) == 0 {
		// Every input is a shape computed at run time (Range or
		// ConstantOfShape over a symbolic size): charge the least time.
		return minOpTime, nil
	}
	overhead, err := c.Overhead()
	if err != nil {
		return 0, err
	}
	c.timing.Lock()
	defer c.timing.Unlock()
	c.mu.Lock()
	d, ok = c.times[key]
	c.mu.Unlock()
	if ok {
		// Timed by another caller while this one waited.
		return d, nil
	}
	meas := &Measured{Backend: c.base, Options: c.measure}
	st, err := meas.Latency(single)
	if err != nil && dataDependent(single) {
		// Random data is not a valid shape/index for this op, and its
		// value is not known before run time: charge the least time (such
		// ops move a few integers).
		st, err = Stats{Median: overhead + minOpTime}, nil
	}
	if err != nil {
		return 0, fmt.Errorf("timing %v alone: %w", n, err)
	}
	d = max(st.Median-overhead, minOpTime)
	c.mu.Lock()
	c.times[key] = d
	c.dirty = true
	c.mu.Unlock()
	return d, nil
}

// constantInputs reports whether every input of n (including the values
// its subgraphs read) is a constant: rewrites create such nodes (e.g.
// concatenating the weights of merged convolutions), exporters emit them
// (ConstantOfShape of a constant shape), and ONNX Runtime folds them when
// it loads the model, opaque or not.
func constantInputs(n *graph.Node) bool {
	for _, in := range n.AllInputs() {
		if in != nil && in.Const == nil {
			return false
		}
	}
	return true
}

// shapeComputation reports whether inference computed every output of n:
// arithmetic on a few integers of a symbolic shape (Shape, Gather,
// Concat ... feeding a Reshape), which runs at run time in a model that
// keeps its symbolic dimensions and costs next to nothing.
func shapeComputation(n *graph.Node) bool {
	some := false
	for _, o := range n.Outputs {
		if o == nil {
			continue
		}
		if o.Known == nil {
			return false
		}
		some = true
	}
	return some
}

// foldable reports whether every input of n is a constant or an output of
// a foldable node.
func foldable(n *graph.Node, folded map[*graph.Value]bool) bool {
	if n.IsOpaque() {
		return false
	}
	for _, in := range n.AllInputs() {
		if in != nil && in.Const == nil && !folded[in] {
			return false
		}
	}
	return true
}

// dataDependent reports whether the single-op model m reads an integer
// input that is not a constant (a shape or index computed at run time).
func dataDependent(m *graph.Model) bool {
	for _, in := range m.Graph.Inputs {
		if in.Const == nil && !in.DType.IsFloat() {
			return true
		}
	}
	return false
}

// minOpTime is the least time charged for an op whose measured time is
// within noise of the call overhead.
const minOpTime = 100 * time.Nanosecond

// Overhead returns the measured fixed cost of one backend call, which
// OpTime subtracts.
func (c *CostModel) Overhead() (time.Duration, error) {
	c.overheadOnce.Do(func() {
		b := graph.NewBuilder("overhead")
		x := b.Input("x", graph.Float32, 1)
		b.Output(b.Op("Identity", []*graph.Value{x}, nil))
		g, err := b.Graph()
		if err != nil {
			c.overheadErr = err
			return
		}
		meas := &Measured{Backend: c.base, Options: c.measure}
		st, err := meas.Latency(&graph.Model{Graph: g})
		if err != nil {
			c.overheadErr = fmt.Errorf("timing the backend's call overhead: %w", err)
			return
		}
		c.overhead = st.Median
	})
	return c.overhead, c.overheadErr
}

// opSignature identifies an operator configuration for the cost cache.
func opSignature(n *graph.Node) string {
	var b strings.Builder
	b.WriteString(n.Domain)
	b.WriteString("::")
	b.WriteString(n.Op)
	for _, name := range n.Attrs.Names() {
		fmt.Fprintf(&b, "|%s=%s", name, n.Attrs[name].Format())
	}
	for _, in := range n.Inputs {
		if in == nil {
			b.WriteString("|-")
			continue
		}
		kind := "x"
		if in.Const != nil {
			kind = "c"
		}
		fmt.Fprintf(&b, "|%s:%v:%v", kind, in.DType, in.Shape)
		if in.Const != nil && in.Const.Len() <= 16 {
			// Small constants (shapes, axes, pads) change what the op does.
			fmt.Fprintf(&b, "=%x", in.Const.Digest())
		}
	}
	for _, o := range n.Outputs {
		if o == nil {
			b.WriteString("|->-")
		} else {
			fmt.Fprintf(&b, "|->%v:%v", o.DType, o.Shape)
		}
	}
	return b.String()
}

// singleOpModel wraps node n of m as a one-node model whose non-constant
// inputs are graph inputs and whose outputs are graph outputs.
func singleOpModel(m *graph.Model, n *graph.Node) (*graph.Model, error) {
	g := &graph.Graph{Name: n.Op}
	vm := map[*graph.Value]*graph.Value{}
	cp := func(v *graph.Value, input bool) *graph.Value {
		if v == nil {
			return nil
		}
		if c, ok := vm[v]; ok {
			return c
		}
		c := &graph.Value{Name: v.Name, DType: v.DType, Shape: v.Shape.Clone(), ShapeKnown: v.ShapeKnown, Const: v.Const}
		if input && c.Const == nil && v.Known != nil && !v.DType.IsFloat() {
			// A computed shape, axis list or index: random data would
			// not be a valid one, so time the op on its real value.
			c.Const = v.Known
		}
		vm[v] = c
		return c
	}
	cn := &graph.Node{Name: n.Name, Op: n.Op, Domain: n.Domain, Attrs: n.Attrs, Opaque: n.Opaque}
	for _, in := range n.Inputs {
		c := cp(in, true)
		cn.Inputs = append(cn.Inputs, c)
		if c != nil && c.Const == nil && !containsValue(g.Inputs, c) {
			g.Inputs = append(g.Inputs, c)
		}
		if c != nil && c.Const != nil && !containsValue(g.Initializers, c) {
			g.Initializers = append(g.Initializers, c)
		}
	}
	for _, o := range n.Outputs {
		c := cp(o, false)
		cn.Outputs = append(cn.Outputs, c)
		if c != nil {
			g.Outputs = append(g.Outputs, c)
		}
	}
	g.Nodes = []*graph.Node{cn}
	return &graph.Model{Graph: g, IRVersion: m.IRVersion, Opsets: m.Opsets}, nil
}

func containsValue(vs []*graph.Value, v *graph.Value) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}

// Save writes the cached op times to the cache file (CostOptions.CacheFile)
// when they changed since they were read or last written; without a file
// it does nothing. Latency saves after every call; callers timing ops
// through OpTime call it when done.
func (c *CostModel) Save() error { return c.save() }

func (c *CostModel) save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == "" || !c.dirty {
		return nil
	}
	ns := make(map[string]int64, len(c.times))
	keys := make([]string, 0, len(c.times))
	for k, v := range c.times {
		ns[k] = int64(v)
		keys = append(keys, k)
	}
	sort.Strings(keys)
	data, err := json.MarshalIndent(ns, "", " ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(c.file, data); err != nil {
		return err
	}
	c.dirty = false
	return nil
}

// DefaultBackendName returns "ort" when ONNX Runtime can be loaded, else "go".
func DefaultBackendName() string {
	if f, ok := backends["ort"]; ok {
		if _, err := f(BackendOptions{}); err == nil {
			return "ort"
		}
	}
	return "go"
}
