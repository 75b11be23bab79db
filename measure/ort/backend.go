package ort

import (
	"fmt"
	goruntime "runtime"
	"time"

	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/sysmem"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
)

func init() {
	measure.RegisterBackend("ort", func(o measure.BackendOptions) (measure.Backend, error) {
		return New(o)
	})
}

// Backend runs models in ONNX Runtime.
type Backend struct {
	threads  int
	optLevel ortgo.GraphOptimizationLevel
}

// ParseOptLevel maps "all", "extended", "basic", "disable" (or "") to
// ONNX Runtime's graph optimisation levels.
func ParseOptLevel(s string) (ortgo.GraphOptimizationLevel, error) {
	switch s {
	case "", "all":
		return ortgo.GraphOptimizationLevelEnableAll, nil
	case "extended":
		return ortgo.GraphOptimizationLevelEnableExtended, nil
	case "basic":
		return ortgo.GraphOptimizationLevelEnableBasic, nil
	case "disable", "none":
		return ortgo.GraphOptimizationLevelDisableAll, nil
	}
	return 0, fmt.Errorf("unknown ONNX Runtime optimisation level %q (want all, extended, basic or disable)", s)
}

// New loads ONNX Runtime (once per process) and returns a backend.
func New(o measure.BackendOptions) (*Backend, error) {
	lvl, err := ParseOptLevel(o.OptLevel)
	if err != nil {
		return nil, err
	}
	if err := initialize(); err != nil {
		return nil, err
	}
	t := o.Threads
	if t <= 0 {
		t = goruntime.NumCPU()
	}
	return &Backend{threads: t, optLevel: lvl}, nil
}

// Name returns "ort".
func (b *Backend) Name() string { return "ort" }

// sessionOptions returns options with the backend's threads and the given
// graph optimisation level; the caller destroys them.
func (b *Backend) sessionOptions(lvl ortgo.GraphOptimizationLevel) (*ortgo.SessionOptions, error) {
	opts, err := ortgo.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	if err := opts.SetIntraOpNumThreads(b.threads); err != nil {
		opts.Destroy()
		return nil, err
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		opts.Destroy()
		return nil, err
	}
	if err := opts.SetGraphOptimizationLevel(lvl); err != nil {
		opts.Destroy()
		return nil, err
	}
	// Threads that spin between runs fight the other session of an
	// interleaved comparison for the cores: let them sleep.
	if err := noSpinning(opts); err != nil {
		opts.Destroy()
		return nil, err
	}
	return opts, nil
}

// encode serialises m to ONNX and returns it with session options at
// optimisation level lvl (see sessionOptions); the caller destroys them.
func (b *Backend) encode(m *graph.Model, lvl ortgo.GraphOptimizationLevel) ([]byte, *ortgo.SessionOptions, error) {
	data, err := onnx.EncodeWith(m, onnx.EncodeOptions{LeanValueInfo: true})
	if err != nil {
		return nil, nil, fmt.Errorf("encoding model for ONNX Runtime: %w", err)
	}
	opts, err := b.sessionOptions(lvl)
	if err != nil {
		return nil, nil, err
	}
	return data, opts, nil
}

// Load serialises m to ONNX and creates an ONNX Runtime session for it.
func (b *Backend) Load(m *graph.Model) (measure.Session, error) {
	return b.load(m, "")
}

// load creates a session for m, with ONNX Runtime's profiler writing to
// files named profilePrefix* if profilePrefix is not empty.
func (b *Backend) load(m *graph.Model, profilePrefix string) (*session, error) {
	if err := sysmem.CheckGraph(m.Graph); err != nil {
		return nil, fmt.Errorf("ONNX Runtime session: %w", err)
	}
	data, opts, err := b.encode(m, b.optLevel)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	if profilePrefix != "" {
		if err := opts.EnableProfiling(profilePrefix); err != nil {
			return nil, fmt.Errorf("enabling ONNX Runtime's profiler: %w", err)
		}
	}
	return newSession(data, opts, m)
}

// LoadONNX creates a session for the serialised model data as it is, not
// encoded again from m, which is that model as read and bound and names
// the session's inputs and outputs (measure.BytesLoader). xrl optimize
// times the original model this way, so that "before" is the file the
// user has: ONNX Runtime ran the corpus encoder's file, its sequence axis
// symbolic, about 10% faster than the same model with its shapes bound.
// data must not refer to external data files.
func (b *Backend) LoadONNX(data []byte, m *graph.Model) (measure.Session, error) {
	opts, err := b.sessionOptions(b.optLevel)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	return newSession(data, opts, m)
}

// newSession creates a session for data with opts, its inputs and outputs
// named after m's.
func newSession(data []byte, opts *ortgo.SessionOptions, m *graph.Model) (*session, error) {
	g := m.Graph
	var inNames, outNames []string
	var inputs []*graph.Value
	for _, v := range g.Inputs {
		if v.Const == nil {
			inNames = append(inNames, v.Name)
			inputs = append(inputs, v)
		}
	}
	outTypes := make([]graph.DType, len(g.Outputs))
	outScalar := make([]bool, len(g.Outputs))
	for i, v := range g.Outputs {
		outNames = append(outNames, v.Name)
		outTypes[i], outScalar[i] = v.DType, v.ShapeKnown && len(v.Shape) == 0
	}
	if err := disableIdleCSE(opts, g); err != nil {
		return nil, err
	}
	s, err := ortgo.NewDynamicAdvancedSessionWithONNXData(data, inNames, outNames, opts)
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime rejected the model: %w", err)
	}
	return &session{s: s, inputs: inputs, outNames: outNames, outTypes: outTypes, outScalar: outScalar}, nil
}

// session is one ONNX Runtime session. Input tensors are converted once per
// distinct input map and reused, so repeated timing runs measure only
// ONNX Runtime's own work.
type session struct {
	s        *ortgo.DynamicAdvancedSession
	inputs   []*graph.Value
	outNames []string
	// outTypes and outScalar give each output's dtype and whether it is
	// rank 0 (such outputs are pre-allocated as Scalar values).
	outTypes  []graph.DType
	outScalar []bool

	cachedFrom []*graph.Tensor
	cached     []ortgo.Value
}

func (s *session) Run(in map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	if s.s == nil {
		return nil, errClosed
	}
	vals, err := s.convertInputs(in)
	if err != nil {
		return nil, err
	}
	if len(vals) == 0 {
		return nil, errNoInputs
	}
	outs, err := scalarOutputs(s.outTypes, s.outScalar)
	if err != nil {
		return nil, err
	}
	if err := s.s.Run(vals, outs); err != nil {
		destroyAll(outs)
		return nil, fmt.Errorf("ONNX Runtime: %w", err)
	}
	res := make(map[string]*graph.Tensor, len(outs))
	for i, v := range outs {
		t, err := fromORT(v)
		v.Destroy()
		if err != nil {
			for _, w := range outs[i+1:] {
				w.Destroy()
			}
			return nil, fmt.Errorf("output %q: %w", s.outNames[i], err)
		}
		res[s.outNames[i]] = t
	}
	return res, nil
}

// RunDiscard runs the model and drops the outputs inside ONNX Runtime,
// without copying them into Go memory (used for timing).
func (s *session) RunDiscard(in map[string]*graph.Tensor) error {
	_, err := s.RunTimed(in)
	return err
}

// RunTimed runs the session once, discarding the outputs, and returns the
// wall time of ONNX Runtime's Run call alone (measure.TimedRunner): the
// inputs' conversion (cached after the first run) and the outputs'
// release fall outside it, as they fall outside a user's call.
func (s *session) RunTimed(in map[string]*graph.Tensor) (time.Duration, error) {
	if s.s == nil {
		return 0, errClosed
	}
	vals, err := s.convertInputs(in)
	if err != nil {
		return 0, err
	}
	if len(vals) == 0 {
		return 0, errNoInputs
	}
	outs, err := scalarOutputs(s.outTypes, s.outScalar)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	err = s.s.Run(vals, outs)
	d := time.Since(t0)
	destroyAll(outs)
	if err != nil {
		return 0, fmt.Errorf("ONNX Runtime: %w", err)
	}
	return d, nil
}

func (s *session) convertInputs(in map[string]*graph.Tensor) ([]ortgo.Value, error) {
	same := len(s.cachedFrom) == len(s.inputs)
	for i, v := range s.inputs {
		if !same || in[v.Name] != s.cachedFrom[i] {
			same = false
			break
		}
	}
	if same {
		return s.cached, nil
	}
	s.dropCache()
	from := make([]*graph.Tensor, len(s.inputs))
	vals := make([]ortgo.Value, len(s.inputs))
	for i, v := range s.inputs {
		t, ok := in[v.Name]
		if !ok {
			destroyAll(vals[:i])
			return nil, fmt.Errorf("missing input %q", v.Name)
		}
		if t.DType != v.DType {
			destroyAll(vals[:i])
			return nil, fmt.Errorf("input %q: got %v, model wants %v", v.Name, t.DType, v.DType)
		}
		ov, err := toORT(t)
		if err != nil {
			destroyAll(vals[:i])
			return nil, fmt.Errorf("input %q: %w", v.Name, err)
		}
		from[i], vals[i] = t, ov
	}
	if len(in) != len(s.inputs) {
		destroyAll(vals)
		return nil, fmt.Errorf("got %d inputs, model has %d", len(in), len(s.inputs))
	}
	s.cachedFrom, s.cached = from, vals
	return vals, nil
}

func (s *session) dropCache() {
	destroyAll(s.cached)
	s.cached, s.cachedFrom = nil, nil
}

// errNoInputs: onnxruntime_go indexes the first input unconditionally.
var errNoInputs = fmt.Errorf("ONNX Runtime backend: models without inputs cannot be run (all inputs are constants)")

func destroyAll(vs []ortgo.Value) {
	for _, v := range vs {
		if v != nil {
			v.Destroy()
		}
	}
}

func (s *session) Close() error {
	if s.s == nil {
		return nil
	}
	s.dropCache()
	err := s.s.Destroy()
	s.s = nil
	return err
}

// noSpinning stops the session's thread pools from spinning while they
// wait for work. A spinning pool keeps its threads busy between runs;
// with two sessions timed alternately (xrl compare, A/B rewards) the idle
// session's spinning threads would take the cores from the running one.
// Without spinning, a run costs a few microseconds of thread wake-up.
func noSpinning(opts *ortgo.SessionOptions) error {
	for _, key := range []string{"session.intra_op.allow_spinning", "session.inter_op.allow_spinning"} {
		if err := opts.AddSessionConfigEntry(key, "0"); err != nil {
			return fmt.Errorf("ONNX Runtime session option %s: %w", key, err)
		}
	}
	return nil
}
