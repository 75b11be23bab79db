package envserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/xrl-dev/xrl/env"
	envv1 "github.com/xrl-dev/xrl/proto/xrl/env/v1"
)

// DefaultMaxEnvs is the default cap on instances held at once.
const DefaultMaxEnvs = 256

// CreateParams is a validated CreateEnv request. Zero numeric fields mean
// the environment's defaults.
type CreateParams struct {
	// ModelPath is the ONNX model's path on the server.
	ModelPath string
	// Shapes binds input shapes by input name.
	Shapes map[string][]int
	// Runtime names the latency model ("" for the server's default).
	Runtime string
	// MaxCandidates, Horizon and FeedbackEvery configure the environment.
	MaxCandidates, Horizon, FeedbackEvery int
	// Seed is the seed of the first Reset that names none.
	Seed uint64
}

// Factory builds the environment of a create request. An error wrapping
// fs.ErrNotExist is reported as NOT_FOUND, any other as INVALID_ARGUMENT:
// the request named something the server cannot build.
type Factory func(ctx context.Context, p CreateParams) (*env.Env, error)

// Options configures a Server.
type Options struct {
	// MaxEnvs caps the instances held at once (default DefaultMaxEnvs).
	MaxEnvs int
	// Version is reported by GetServerInfo.
	Version string
	// Defaults fill the fields a create request leaves empty or zero
	// (ModelPath, Shapes, Runtime, MaxCandidates, Horizon, FeedbackEvery;
	// not Seed, for which zero is a valid value).
	Defaults CreateParams
}

// Server implements envv1.EnvServiceServer over environments built by a
// Factory. It is safe for concurrent use.
type Server struct {
	envv1.UnimplementedEnvServiceServer
	factory Factory
	opts    Options

	mu       sync.Mutex
	envs     map[uint64]*instance
	nextID   uint64
	stopping bool
}

// instance is one environment and its seed sequence; mu serialises calls.
type instance struct {
	mu       sync.Mutex
	env      *env.Env
	spec     *envv1.EnvSpec
	nextSeed uint64
}

// New returns a server building environments with f.
func New(f Factory, opts Options) *Server {
	if opts.MaxEnvs <= 0 {
		opts.MaxEnvs = DefaultMaxEnvs
	}
	return &Server{factory: f, opts: opts, envs: map[uint64]*instance{}, nextID: 1}
}

// Open returns the number of instances held.
func (s *Server) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.envs)
}

// beginShutdown makes later CreateEnv calls fail with UNAVAILABLE.
func (s *Server) beginShutdown() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
}

// GetServerInfo implements envv1.EnvServiceServer.
func (s *Server) GetServerInfo(context.Context, *envv1.GetServerInfoRequest) (*envv1.GetServerInfoResponse, error) {
	return &envv1.GetServerInfoResponse{XrlVersion: s.opts.Version, EnvVersion: env.Version,
		OpenEnvs: int32(s.Open()), MaxEnvs: int32(s.opts.MaxEnvs)}, nil
}

// CreateEnv implements envv1.EnvServiceServer.
func (s *Server) CreateEnv(ctx context.Context, req *envv1.CreateEnvRequest) (*envv1.CreateEnvResponse, error) {
	p, err := createParams(req, s.opts.Defaults)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if err := s.admit(); err != nil {
		return nil, err
	}
	e, err := s.factory(ctx, p)
	if err != nil {
		code := codes.InvalidArgument
		if errors.Is(err, fs.ErrNotExist) {
			code = codes.NotFound
		}
		return nil, status.Errorf(code, "creating an environment for %s: %v", p.ModelPath, err)
	}
	inst := &instance{env: e, spec: specOf(e), nextSeed: p.Seed}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return nil, status.Error(codes.Unavailable, "the server is shutting down")
	}
	if len(s.envs) >= s.opts.MaxEnvs {
		return nil, s.fullError()
	}
	id := s.nextID
	s.nextID++
	s.envs[id] = inst
	return &envv1.CreateEnvResponse{EnvId: id, Spec: inst.spec}, nil
}

// admit rejects a create early when the server is full or stopping (the
// check is repeated once the environment is built).
func (s *Server) admit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return status.Error(codes.Unavailable, "the server is shutting down")
	}
	if len(s.envs) >= s.opts.MaxEnvs {
		return s.fullError()
	}
	return nil
}

func (s *Server) fullError() error {
	return status.Errorf(codes.ResourceExhausted, "the server holds its maximum of %d environments; close some first", s.opts.MaxEnvs)
}

// createParams validates a create request and fills its empty fields
// from def.
func createParams(req *envv1.CreateEnvRequest, def CreateParams) (CreateParams, error) {
	p := CreateParams{ModelPath: req.GetModelPath(), Runtime: req.GetRuntime(),
		MaxCandidates: int(req.GetMaxCandidates()), Horizon: int(req.GetHorizon()),
		FeedbackEvery: int(req.GetFeedbackEvery()), Seed: req.GetSeed()}
	if p.ModelPath == "" {
		if def.ModelPath == "" {
			return p, errors.New("model_path is required (the server has no default model)")
		}
		p.ModelPath = def.ModelPath
		if len(req.GetShapes()) == 0 {
			p.Shapes = def.Shapes
		}
	}
	if p.Runtime == "" {
		p.Runtime = def.Runtime
	}
	for _, f := range []struct {
		v   *int
		def int
	}{{&p.MaxCandidates, def.MaxCandidates}, {&p.Horizon, def.Horizon}, {&p.FeedbackEvery, def.FeedbackEvery}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"max_candidates", p.MaxCandidates}, {"horizon", p.Horizon}, {"feedback_every", p.FeedbackEvery}} {
		if f.v < 0 {
			return p, fmt.Errorf("%s must not be negative, got %d", f.name, f.v)
		}
	}
	if len(req.GetShapes()) > 0 {
		p.Shapes = make(map[string][]int, len(req.GetShapes()))
	}
	for i, sh := range req.GetShapes() {
		if sh.GetName() == "" {
			return p, fmt.Errorf("shapes[%d]: the input name is required", i)
		}
		if _, dup := p.Shapes[sh.GetName()]; dup {
			return p, fmt.Errorf("shapes[%d]: input %q bound twice", i, sh.GetName())
		}
		if len(sh.GetDims()) == 0 {
			return p, fmt.Errorf("shapes[%d]: input %q has no dimensions", i, sh.GetName())
		}
		dims := make([]int, len(sh.GetDims()))
		for j, d := range sh.GetDims() {
			if d < 1 || d > 1<<31 {
				return p, fmt.Errorf("shapes[%d]: input %q dimension %d is %d, want a positive size", i, sh.GetName(), j, d)
			}
			dims[j] = int(d)
		}
		p.Shapes[sh.GetName()] = dims
	}
	return p, nil
}

// withInstance runs f on the instance with id while holding its lock, or
// returns NOT_FOUND.
func withInstance[R any](s *Server, id uint64, f func(*instance) (R, error)) (R, error) {
	s.mu.Lock()
	inst, ok := s.envs[id]
	s.mu.Unlock()
	if !ok {
		var zero R
		return zero, notFound(id)
	}
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return f(inst)
}

func notFound(id uint64) error {
	return status.Errorf(codes.NotFound, "env_id %d: no such environment (never created or already closed)", id)
}

// Reset implements envv1.EnvServiceServer.
func (s *Server) Reset(ctx context.Context, req *envv1.ResetRequest) (*envv1.ResetResponse, error) {
	return withInstance(s, req.GetEnvId(), func(inst *instance) (*envv1.ResetResponse, error) {
		seed := inst.nextSeed
		if req.Seed != nil {
			seed = req.GetSeed()
		}
		obs, info, err := inst.env.Reset(seed)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "env_id %d: reset: %v", req.GetEnvId(), err)
		}
		inst.nextSeed = seed + 1
		return &envv1.ResetResponse{Observation: EncodeObservation(obs), Info: encodeInfo(info), Seed: seed}, nil
	})
}

// Step implements envv1.EnvServiceServer.
func (s *Server) Step(ctx context.Context, req *envv1.StepRequest) (*envv1.StepResponse, error) {
	return withInstance(s, req.GetEnvId(), func(inst *instance) (*envv1.StepResponse, error) {
		obs, r, term, trunc, info, err := inst.env.Step(int(req.GetAction()))
		switch {
		case errors.Is(err, env.ErrNeedsReset):
			return nil, status.Errorf(codes.FailedPrecondition, "env_id %d: step before reset or after the episode ended: call Reset", req.GetEnvId())
		case errors.Is(err, env.ErrInvalidAction):
			return nil, status.Errorf(codes.InvalidArgument, "env_id %d: %v", req.GetEnvId(), err)
		case err != nil:
			return nil, status.Errorf(codes.Internal, "env_id %d: step: %v", req.GetEnvId(), err)
		}
		return &envv1.StepResponse{Observation: EncodeObservation(obs), Reward: r, Terminated: term,
			Truncated: trunc, Info: encodeInfo(info)}, nil
	})
}

// CloseEnv implements envv1.EnvServiceServer.
func (s *Server) CloseEnv(ctx context.Context, req *envv1.CloseEnvRequest) (*envv1.CloseEnvResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.envs[req.GetEnvId()]; !ok {
		return nil, notFound(req.GetEnvId())
	}
	delete(s.envs, req.GetEnvId())
	return &envv1.CloseEnvResponse{}, nil
}
