package cli

import (
	"fmt"
	goruntime "runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is xrl's version, set at build time with
// -ldflags "-X github.com/xrl-dev/xrl/cmd/xrl/internal/cli.Version=v1.2.3".
var Version = "dev"

type versionOptions struct {
	IO IO
}

// NewCmdVersion returns `xrl version`.
func NewCmdVersion(s IO, runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{IO: s}
	return leaf(&cobra.Command{
		Use:   "version",
		Short: "Print the version of xrl",
		Args:  cobra.NoArgs,
	}, opts, nil, runF, versionRun)
}

func versionRun(o *versionOptions) error {
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " (" + s.Value[:12] + ")"
			}
		}
	}
	fmt.Fprintf(o.IO.Out, "xrl %s%s %s %s/%s\n", Version, rev, goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
	return nil
}
