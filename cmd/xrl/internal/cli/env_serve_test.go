package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	envv1 "github.com/xrl-dev/xrl/proto/xrl/env/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func TestEnvServeErrors(t *testing.T) {
	f := func(name string) string { return fixture(t, name) }
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"missing model", []string{"env", "serve", f("nope.onnx")}, exitError, []string{"nope.onnx"}},
		{"not onnx", []string{"env", "serve", f("text.onnx")}, exitError, []string{"text.onnx"}},
		{"bad addr", []string{"env", "serve", "--addr", "localhost"}, exitUsage, []string{"--addr", "HOST:PORT"}},
		{"addr in use or invalid", []string{"env", "serve", "--addr", "256.1.1.1:0"}, exitError, []string{"--addr 256.1.1.1:0"}},
		{"bad max candidates", []string{"env", "serve", "--max-candidates", "0"}, exitUsage, []string{"--max-candidates"}},
		{"bad runtime", []string{"env", "serve", "--runtime", "tpu"}, exitUsage, []string{"--runtime", "tpu"}},
		{"two models", []string{"env", "serve", f("mlp.onnx"), f("mlp.onnx")}, exitUsage, []string{"accepts at most 1 arg"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expectRun(t, tc.args, tc.code, nil, tc.want)
		})
	}
}

// TestHelperServe is not a test: TestServeShutdown runs the test binary
// with XRL_TEST_SERVE_ARGS set to run `xrl` with those arguments in a
// process of its own.
func TestHelperServe(t *testing.T) {
	args := os.Getenv("XRL_TEST_SERVE_ARGS")
	if args == "" {
		t.Skip("helper process only")
	}
	os.Exit(Main(strings.Split(args, "\x1f"), os.Stdin, os.Stdout, os.Stderr))
}

// startServeProcess runs `xrl env serve` in a child process and returns
// it, its stdin, its stderr and the address from its first stdout line.
func startServeProcess(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, *strings.Builder, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServe$")
	cmd.Env = append(os.Environ(), "XRL_TEST_SERVE_ARGS="+strings.Join(append([]string{"env", "serve"}, args...), "\x1f"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("first stdout line %q (%v); stderr:\n%s", line, err, stderr.String())
	}
	return cmd, stdin, &stderr, addr
}

func TestServeShutdown(t *testing.T) {
	model := filepath.Join(fixtures(t), "mlp.onnx")
	for _, how := range []string{"SIGTERM", "stdin EOF"} {
		t.Run(how, func(t *testing.T) {
			cmd, stdin, stderr, addr := startServeProcess(t, model, "--runtime", "go", "--runs", "2", "--warmup", "0", "--stop-on-eof")
			conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			client := envv1.NewEnvServiceClient(conn)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cr, err := client.CreateEnv(ctx, &envv1.CreateEnvRequest{MaxCandidates: 8})
			if err != nil {
				t.Fatal(err)
			}
			rr, err := client.Reset(ctx, &envv1.ResetRequest{EnvId: cr.GetEnvId()})
			if err != nil || len(rr.GetObservation().GetActionMask().GetData()) != 9 {
				t.Fatalf("reset: %v (%v)", err, rr)
			}
			if how == "SIGTERM" {
				err = cmd.Process.Signal(syscall.SIGTERM)
			} else {
				err = stdin.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("server exit: %v\nstderr:\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "shut down (1 environments were open)") {
				t.Errorf("stderr:\n%s", stderr.String())
			}
			if _, err := client.GetServerInfo(ctx, &envv1.GetServerInfoRequest{}); err == nil {
				t.Error("the server still answers after shutting down")
			}
		})
	}
}
