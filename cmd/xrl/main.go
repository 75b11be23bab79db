// Command xrl optimises ONNX models with verified graph rewrites chosen by
// search or by a reinforcement-learning agent. Run `xrl --help` for usage.
package main

import (
	"os"

	"github.com/xrl-dev/xrl/cmd/xrl/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
