package envserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/xrltest"
	"github.com/xrl-dev/xrl/measure"
	envv1 "github.com/xrl-dev/xrl/proto/xrl/env/v1"
)

// slowLatency delays every measurement, to keep calls in flight.
type slowLatency struct {
	xrltest.NodeLatency
	delay time.Duration
}

func (l *slowLatency) Latency(m *graph.Model) (measure.Stats, error) {
	time.Sleep(l.delay)
	return l.NodeLatency.Latency(m)
}

// testEnv builds the test environment of a create request: a chain with
// Identity and doubled Relu nodes, rewritten by xrltest.DropRewriter.
func testEnv(t testing.TB, p CreateParams, lm measure.LatencyModel) (*env.Env, error) {
	switch p.ModelPath {
	case "missing.onnx":
		return nil, fmt.Errorf("%s: %w", p.ModelPath, fs.ErrNotExist)
	case "bad.onnx":
		return nil, errors.New("bad.onnx: not an ONNX model")
	}
	if lm == nil {
		lm = &xrltest.NodeLatency{}
	}
	return env.New(env.Config{
		Model:    xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh", "Identity"),
		Rewriter: xrltest.DropRewriter{}, Latency: lm,
		MaxCandidates: p.MaxCandidates, Horizon: p.Horizon, FeedbackEvery: p.FeedbackEvery,
	})
}

// startServer serves s on a loopback port and returns a connected client
// and a function that shuts the server down and returns Serve's error.
func startServer(t *testing.T, s *Server) (envv1.EnvServiceClient, func() error) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, lis, s, 5*time.Second) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			serveErr = <-done
			conn.Close()
		})
		return serveErr
	}
	t.Cleanup(func() { _ = stop() })
	return envv1.NewEnvServiceClient(conn), stop
}

func newTestServer(t *testing.T, opts Options) *Server {
	return New(func(_ context.Context, p CreateParams) (*env.Env, error) { return testEnv(t, p, nil) }, opts)
}

// pick returns a deterministic valid action: the step-th valid candidate
// modulo the number of valid actions.
func pick(mask []bool, step int) int {
	var valid []int
	for i, ok := range mask {
		if ok {
			valid = append(valid, i)
		}
	}
	return valid[(step*7+3)%len(valid)]
}

func maskOf(t *testing.T, o *envv1.Observation) []bool {
	t.Helper()
	m := make([]bool, len(o.GetActionMask().GetData()))
	for i, b := range o.GetActionMask().GetData() {
		m[i] = b == 1
	}
	return m
}

func TestTrajectoryMatchesEnv(t *testing.T) {
	client, _ := startServer(t, newTestServer(t, Options{}))
	ctx := context.Background()
	cr, err := client.CreateEnv(ctx, &envv1.CreateEnvRequest{ModelPath: "chain.onnx", MaxCandidates: 3, FeedbackEvery: 2, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	if cr.GetSpec().GetNumActions() != 4 || cr.GetSpec().GetNoOpAction() != 3 || len(cr.GetSpec().GetOpClasses()) != env.NumOpClasses() {
		t.Fatalf("spec %v", cr.GetSpec())
	}
	direct, err := testEnv(t, CreateParams{MaxCandidates: 3, FeedbackEvery: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for ep, seed := range []uint64{11, 12, 40} {
		req := &envv1.ResetRequest{EnvId: cr.GetEnvId()}
		if ep == 2 {
			req.Seed = proto.Uint64(seed)
		}
		rr, err := client.Reset(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		obs, info, err := direct.Reset(seed)
		if err != nil {
			t.Fatal(err)
		}
		info.CandidateTime = time.Duration(rr.GetInfo().GetCandidateTimeNs())
		if rr.GetSeed() != seed || !proto.Equal(rr.GetObservation(), EncodeObservation(obs)) || !proto.Equal(rr.GetInfo(), encodeInfo(info)) {
			t.Fatalf("episode %d: reset differs (seed %d, want %d)", ep, rr.GetSeed(), seed)
		}
		wire := rr.GetObservation()
		for step := 0; ; step++ {
			a := pick(maskOf(t, wire), step)
			sr, err := client.Step(ctx, &envv1.StepRequest{EnvId: cr.GetEnvId(), Action: int32(a)})
			if err != nil {
				t.Fatal(err)
			}
			obs, r, term, trunc, info, err := direct.Step(a)
			if err != nil {
				t.Fatal(err)
			}
			info.CandidateTime = time.Duration(sr.GetInfo().GetCandidateTimeNs())
			if sr.GetReward() != r || sr.GetTerminated() != term || sr.GetTruncated() != trunc ||
				!proto.Equal(sr.GetObservation(), EncodeObservation(obs)) || !proto.Equal(sr.GetInfo(), encodeInfo(info)) {
				t.Fatalf("episode %d step %d: server (%v %v %v %v) differs from env (%v %v %v %+v)", ep, step,
					sr.GetReward(), sr.GetTerminated(), sr.GetTruncated(), sr.GetInfo(), r, term, trunc, info)
			}
			wire = sr.GetObservation()
			if term || trunc {
				break
			}
		}
	}
}

func TestObservationLayout(t *testing.T) {
	e, err := testEnv(t, CreateParams{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	obs, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	w := EncodeObservation(obs)
	graphs := 1 + len(obs.Candidates)
	var nodes, edges int
	for _, g := range append([]*env.GraphTensor{obs.Current}, obs.Candidates...) {
		nodes += g.NumNodes()
		edges += g.NumEdges()
	}
	for _, c := range []struct {
		name  string
		t     *envv1.Tensor
		shape []int64
		size  int
	}{
		{"node_class", w.GetNodeClass(), []int64{int64(nodes)}, 4},
		{"senders", w.GetSenders(), []int64{int64(edges)}, 4},
		{"receivers", w.GetReceivers(), []int64{int64(edges)}, 4},
		{"edge_features", w.GetEdgeFeatures(), []int64{int64(edges), env.EdgeDim}, 4},
		{"global_features", w.GetGlobalFeatures(), []int64{int64(graphs), env.GlobalDim}, 4},
		{"node_counts", w.GetNodeCounts(), []int64{int64(graphs)}, 4},
		{"edge_counts", w.GetEdgeCounts(), []int64{int64(graphs)}, 4},
		{"action_mask", w.GetActionMask(), []int64{int64(env.DefaultMaxCandidates + 1)}, 1},
	} {
		n := int64(1)
		for _, d := range c.shape {
			n *= d
		}
		if fmt.Sprint(c.t.GetShape()) != fmt.Sprint(c.shape) || int64(len(c.t.GetData())) != n*int64(c.size) {
			t.Errorf("%s: shape %v with %d bytes, want %v", c.name, c.t.GetShape(), len(c.t.GetData()), c.shape)
		}
	}
	// The first node of the current graph is the input x, little-endian.
	in := int32(w.GetNodeClass().GetData()[0]) | int32(w.GetNodeClass().GetData()[1])<<8
	if want := obs.Current.NodeClass[0]; in != want {
		t.Errorf("node_class[0] = %d, want %d", in, want)
	}
}

func TestBadRequests(t *testing.T) {
	client, _ := startServer(t, newTestServer(t, Options{}))
	ctx := context.Background()
	good, err := client.CreateEnv(ctx, &envv1.CreateEnvRequest{ModelPath: "chain.onnx", MaxCandidates: 10, Horizon: 2})
	if err != nil {
		t.Fatal(err)
	}
	id := good.GetEnvId()
	create := func(req *envv1.CreateEnvRequest) func() error {
		return func() error {
			_, err := client.CreateEnv(ctx, req)
			return err
		}
	}
	step := func(action int32) func() error {
		return func() error {
			_, err := client.Step(ctx, &envv1.StepRequest{EnvId: id, Action: action})
			return err
		}
	}
	cases := []struct {
		name string
		call func() error
		code codes.Code
		msg  string
	}{
		{"no model path", create(&envv1.CreateEnvRequest{}), codes.InvalidArgument, "model_path is required"},
		{"negative horizon", create(&envv1.CreateEnvRequest{ModelPath: "chain.onnx", Horizon: -1}), codes.InvalidArgument, "horizon must not be negative"},
		{"zero dimension", create(&envv1.CreateEnvRequest{ModelPath: "chain.onnx",
			Shapes: []*envv1.InputShape{{Name: "x", Dims: []int64{2, 0}}}}), codes.InvalidArgument, `input "x" dimension 1 is 0`},
		{"shape bound twice", create(&envv1.CreateEnvRequest{ModelPath: "chain.onnx",
			Shapes: []*envv1.InputShape{{Name: "x", Dims: []int64{2}}, {Name: "x", Dims: []int64{3}}}}), codes.InvalidArgument, `input "x" bound twice`},
		{"missing model", create(&envv1.CreateEnvRequest{ModelPath: "missing.onnx"}), codes.NotFound, "missing.onnx"},
		{"bad model", create(&envv1.CreateEnvRequest{ModelPath: "bad.onnx"}), codes.InvalidArgument, "not an ONNX model"},
		{"step before reset", step(0), codes.FailedPrecondition, "call Reset"},
		{"reset", func() error { _, err := client.Reset(ctx, &envv1.ResetRequest{EnvId: id}); return err }, codes.OK, ""},
		{"action beyond No-Op", step(11), codes.InvalidArgument, "invalid action 11"},
		{"negative action", step(-1), codes.InvalidArgument, "invalid action -1"},
		{"masked action", step(7), codes.InvalidArgument, "invalid action 7"},
		{"valid step", step(0), codes.OK, ""},
		{"last step", step(0), codes.OK, ""},
		{"step after the horizon", step(0), codes.FailedPrecondition, "after the episode ended"},
	}
	for _, c := range cases {
		err := c.call()
		st := status.Convert(err)
		if st.Code() != c.code || !strings.Contains(st.Message(), c.msg) {
			t.Errorf("%s: got %v %q, want %v containing %q", c.name, st.Code(), st.Message(), c.code, c.msg)
		}
	}
}

func TestUnknownIDs(t *testing.T) {
	client, _ := startServer(t, newTestServer(t, Options{}))
	ctx := context.Background()
	cr, err := client.CreateEnv(ctx, &envv1.CreateEnvRequest{ModelPath: "chain.onnx"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CloseEnv(ctx, &envv1.CloseEnvRequest{EnvId: cr.GetEnvId()}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []uint64{0, cr.GetEnvId(), 999} {
		calls := map[string]error{}
		_, calls["reset"] = client.Reset(ctx, &envv1.ResetRequest{EnvId: id})
		_, calls["step"] = client.Step(ctx, &envv1.StepRequest{EnvId: id})
		_, calls["close"] = client.CloseEnv(ctx, &envv1.CloseEnvRequest{EnvId: id})
		for name, err := range calls {
			st := status.Convert(err)
			if st.Code() != codes.NotFound || !strings.Contains(st.Message(), fmt.Sprintf("env_id %d: no such environment", id)) {
				t.Errorf("%s of id %d: %v %q, want NotFound", name, id, st.Code(), st.Message())
			}
		}
	}
	info, err := client.GetServerInfo(ctx, &envv1.GetServerInfoRequest{})
	if err != nil || info.GetOpenEnvs() != 0 || info.GetEnvVersion() != env.Version {
		t.Fatalf("server info %v, %v", info, err)
	}
}

func TestMaxEnvs(t *testing.T) {
	client, _ := startServer(t, newTestServer(t, Options{MaxEnvs: 2}))
	ctx := context.Background()
	var ids []uint64
	for i := 0; i < 3; i++ {
		cr, err := client.CreateEnv(ctx, &envv1.CreateEnvRequest{ModelPath: "chain.onnx"})
		if i < 2 {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, cr.GetEnvId())
			continue
		}
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("third create: %v, want ResourceExhausted", err)
		}
	}
	if _, err := client.CloseEnv(ctx, &envv1.CloseEnvRequest{EnvId: ids[0]}); err != nil {
		t.Fatal(err)
	}
	cr, err := client.CreateEnv(ctx, &envv1.CreateEnvRequest{ModelPath: "chain.onnx"})
	if err != nil || cr.GetEnvId() == ids[0] || cr.GetEnvId() == ids[1] {
		t.Fatalf("create after close: id %d, %v (ids must not be reused)", cr.GetEnvId(), err)
	}
}

// TestConcurrentClients runs several clients, each on its own connection
// and environment, at once; each must see exactly the episodes of a
// private in-process environment.
func TestConcurrentClients(t *testing.T) {
	s := newTestServer(t, Options{})
	client, _ := startServer(t, s)
	const clients = 6
	var wg sync.WaitGroup
	errs := make([]error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			errs[c] = runClient(t, client, uint64(100*c))
		}(c)
	}
	wg.Wait()
	for c, err := range errs {
		if err != nil {
			t.Errorf("client %d: %v", c, err)
		}
	}
	if s.Open() != 0 {
		t.Errorf("%d environments left open", s.Open())
	}
}

func runClient(t *testing.T, client envv1.EnvServiceClient, seed uint64) error {
	ctx := context.Background()
	cr, err := client.CreateEnv(ctx, &envv1.CreateEnvRequest{ModelPath: "chain.onnx", MaxCandidates: 2, Seed: seed})
	if err != nil {
		return err
	}
	direct, err := testEnv(t, CreateParams{MaxCandidates: 2}, nil)
	if err != nil {
		return err
	}
	for ep := 0; ep < 4; ep++ {
		rr, err := client.Reset(ctx, &envv1.ResetRequest{EnvId: cr.GetEnvId()})
		if err != nil {
			return err
		}
		if _, _, err := direct.Reset(seed + uint64(ep)); err != nil {
			return err
		}
		mask := maskOf(t, rr.GetObservation())
		for step := 0; ; step++ {
			a := pick(mask, step+int(seed))
			sr, err := client.Step(ctx, &envv1.StepRequest{EnvId: cr.GetEnvId(), Action: int32(a)})
			if err != nil {
				return err
			}
			obs, r, term, trunc, _, err := direct.Step(a)
			if err != nil {
				return err
			}
			if sr.GetReward() != r || !proto.Equal(sr.GetObservation(), EncodeObservation(obs)) {
				return fmt.Errorf("episode %d step %d differs", ep, step)
			}
			if term || trunc {
				break
			}
			mask = maskOf(t, sr.GetObservation())
		}
	}
	_, err = client.CloseEnv(ctx, &envv1.CloseEnvRequest{EnvId: cr.GetEnvId()})
	return err
}

// TestGracefulShutdown cancels Serve's context while a step is in flight:
// the step completes, Serve returns nil, and creates are then refused.
func TestGracefulShutdown(t *testing.T) {
	s := New(func(_ context.Context, p CreateParams) (*env.Env, error) {
		return testEnv(t, p, &slowLatency{delay: 300 * time.Millisecond})
	}, Options{})
	client, stop := startServer(t, s)
	ctx := context.Background()
	cr, err := client.CreateEnv(ctx, &envv1.CreateEnvRequest{ModelPath: "chain.onnx", FeedbackEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Reset(ctx, &envv1.ResetRequest{EnvId: cr.GetEnvId()}); err != nil {
		t.Fatal(err)
	}
	stepErr := make(chan error, 1)
	go func() {
		_, err := client.Step(ctx, &envv1.StepRequest{EnvId: cr.GetEnvId(), Action: 0})
		stepErr <- err
	}()
	time.Sleep(100 * time.Millisecond) // the step is now measuring latency
	t0 := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if err := <-stepErr; err != nil {
		t.Fatalf("step in flight during shutdown: %v", err)
	}
	if d := time.Since(t0); d < 100*time.Millisecond {
		t.Errorf("shutdown took %v: it did not wait for the step in flight", d)
	}
	if _, err := s.CreateEnv(ctx, &envv1.CreateEnvRequest{ModelPath: "chain.onnx"}); status.Code(err) != codes.Unavailable {
		t.Errorf("create after shutdown: %v, want Unavailable", err)
	}
}

func TestDefaultsFillEmptyFields(t *testing.T) {
	client, _ := startServer(t, newTestServer(t, Options{Defaults: CreateParams{ModelPath: "chain.onnx", MaxCandidates: 2, Horizon: 3}}))
	ctx := context.Background()
	for _, c := range []struct {
		req               *envv1.CreateEnvRequest
		maxCands, horizon int32
		feedback          int32
	}{
		{&envv1.CreateEnvRequest{}, 2, 3, env.DefaultFeedbackEvery},
		{&envv1.CreateEnvRequest{MaxCandidates: 4, FeedbackEvery: 1}, 4, 3, 1},
		{&envv1.CreateEnvRequest{ModelPath: "other.onnx", Horizon: 9}, 2, 9, env.DefaultFeedbackEvery},
	} {
		cr, err := client.CreateEnv(ctx, c.req)
		if err != nil {
			t.Fatal(err)
		}
		sp := cr.GetSpec()
		if sp.GetMaxCandidates() != c.maxCands || sp.GetHorizon() != c.horizon || sp.GetFeedbackEvery() != c.feedback {
			t.Errorf("create %v: spec %d/%d/%d, want %d/%d/%d", c.req, sp.GetMaxCandidates(), sp.GetHorizon(),
				sp.GetFeedbackEvery(), c.maxCands, c.horizon, c.feedback)
		}
	}
}
