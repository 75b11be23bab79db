package envserver

import (
	"context"
	"errors"
	"net"
	"time"

	"google.golang.org/grpc"

	envv1 "github.com/xrl-dev/xrl/proto/xrl/env/v1"
)

// DefaultGrace is how long Serve waits for calls in flight when its
// context ends before it cuts them off.
const DefaultGrace = 30 * time.Second

// Serve serves s on lis until ctx ends, then shuts down gracefully: new
// environments are refused, calls in flight may finish for up to grace
// (DefaultGrace when zero), and the listener is closed. It returns nil
// after a shutdown asked for by ctx, or the error that stopped serving.
func Serve(ctx context.Context, lis net.Listener, s *Server, grace time.Duration) error {
	if grace <= 0 {
		grace = DefaultGrace
	}
	gs := grpc.NewServer()
	envv1.RegisterEnvServiceServer(gs, s)
	errc := make(chan error, 1)
	go func() { errc <- gs.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.beginShutdown()
	stopped := make(chan struct{})
	go func() {
		gs.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(grace):
		gs.Stop()
		<-stopped
	}
	if err := <-errc; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}
