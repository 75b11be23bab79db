package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/envserver"
	"github.com/xrl-dev/xrl/train"
)

type envServeOptions struct {
	execFlags
	IO            IO
	Model         string
	CostCache     string
	Addr          string
	MaxCandidates int
	Horizon       int
	FeedbackEvery int
	MaxEnvs       int
	Grace         time.Duration
	StopOnEOF     bool
}

// NewCmdEnvServe returns `xrl env serve [MODEL.onnx]`.
func NewCmdEnvServe(s IO, runF func(*envServeOptions) error) *cobra.Command {
	opts := &envServeOptions{IO: s}
	c := leaf(&cobra.Command{
		Use:   "serve [MODEL.onnx]",
		Short: "Serve environments over gRPC (for Python and other RL code)",
		Long: `serve runs a gRPC server of the graph-rewriting environment (the EnvService of
proto/xrl/env/v1/env.proto). Clients create, reset, step and close environment
instances by id; one server holds many instances and steps them concurrently. The
first line on stdout is "listening on HOST:PORT". MODEL and the flags are the defaults
of instances whose create request leaves them out. SIGINT or SIGTERM shuts the
server down gracefully: calls in flight finish (up to --grace), new ones are refused.
The Python client python/xrl_gym starts this command itself (see docs/python.md).`,
		Args: cobra.MaximumNArgs(1),
	}, opts, func(c *cobra.Command, args []string) error {
		if len(args) == 1 {
			opts.Model = args[0]
		}
		if opts.Horizon < 1 || opts.FeedbackEvery < 1 || opts.MaxCandidates < 1 || opts.MaxEnvs < 1 {
			return usagef("--horizon, --feedback-every, --max-candidates and --max-envs must be positive")
		}
		if err := opts.Runtime.validate(true); err != nil {
			return err
		}
		if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
			return usagef("--addr %q: want HOST:PORT (port 0 picks a free one)", opts.Addr)
		}
		return nil
	}, runF, envServeRun)
	f := opts.bindExec(c, true)
	f.Lookup("runtime").Usage = "latency model of the rewards: cost, ort, go or roofline (deterministic, analytic; default cost)"
	f.StringVar(&opts.CostCache, "cost-cache", "", "keep the cost model's per-op times in this JSON file (same times across runs)")
	f.StringVar(&opts.Addr, "addr", "127.0.0.1:0", "address to listen on, HOST:PORT (port 0 picks a free one)")
	f.IntVar(&opts.MaxCandidates, "max-candidates", env.DefaultMaxCandidates, "default candidates shown per step")
	f.IntVar(&opts.Horizon, "horizon", env.DefaultHorizon, "default steps after which an episode is truncated")
	f.IntVar(&opts.FeedbackEvery, "feedback-every", env.DefaultFeedbackEvery, "default: measure latency every N steps")
	f.IntVar(&opts.MaxEnvs, "max-envs", envserver.DefaultMaxEnvs, "most environment instances held at once")
	f.DurationVar(&opts.Grace, "grace", envserver.DefaultGrace, "on shutdown, how long calls in flight may finish")
	f.BoolVar(&opts.StopOnEOF, "stop-on-eof", false, "also shut down when stdin reaches end of file (so a server never outlives the process that started it)")
	return c
}

func envServeRun(o *envServeOptions) error {
	shapes, err := o.Shapes.bindings()
	if err != nil {
		return err
	}
	name := o.Runtime.Runtime
	if name == "" {
		name = "cost"
	}
	defaults := envserver.CreateParams{ModelPath: o.Model, Shapes: shapes, Runtime: name,
		MaxCandidates: o.MaxCandidates, Horizon: o.Horizon, FeedbackEvery: o.FeedbackEvery}
	envs := train.NewEnvs(o.Runtime.measurement(), o.CostCache)
	if o.Model != "" {
		// Load the default model now, so that a bad one fails at start.
		if _, err := envs.New(context.Background(), defaults); err != nil {
			return err
		}
	}
	lis, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", o.Addr, err)
	}
	fmt.Fprintf(o.IO.Out, "listening on %s\n", lis.Addr())
	if f, ok := o.IO.Out.(*os.File); ok {
		f.Sync()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.StopOnEOF {
		ctx = stopOnEOF(ctx, o.IO.In)
	}
	srv := envserver.New(envs.New, envserver.Options{Version: Version, MaxEnvs: o.MaxEnvs, Defaults: defaults})
	if err := envserver.Serve(ctx, lis, srv, o.Grace); err != nil {
		return fmt.Errorf("serving on %s: %w", lis.Addr(), err)
	}
	fmt.Fprintf(o.IO.Err, "shut down (%d environments were open)\n", srv.Open())
	return nil
}

// stopOnEOF returns a context that also ends when in reaches end of file
// (its data is discarded).
func stopOnEOF(ctx context.Context, in io.Reader) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		io.Copy(io.Discard, in)
		cancel()
	}()
	return ctx
}
