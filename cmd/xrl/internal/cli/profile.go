package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profileOptions are the root's --cpuprofile and --memprofile flags: pprof
// profiles of one command, for finding where its time and memory go.
type profileOptions struct {
	CPU, Mem string
	cpuFile  *os.File
}

// bind adds the flags to the root as persistent flags.
func (p *profileOptions) bind(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&p.CPU, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof)")
	f.StringVar(&p.Mem, "memprofile", "", "write a heap profile (allocations and what is live at the end) to this file (go tool pprof)")
}

// start begins the CPU profile when asked for.
func (p *profileOptions) start() error {
	if p.CPU == "" {
		return nil
	}
	f, err := os.Create(p.CPU)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.cpuFile = f
	return nil
}

// stop ends the CPU profile and writes the heap profile, whether the
// command succeeded or not.
func (p *profileOptions) stop() error {
	var errs []error
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--cpuprofile: %w", err))
		}
		p.cpuFile = nil
	}
	if p.Mem != "" {
		f, err := os.Create(p.Mem)
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("--memprofile: %w", err))...)
		}
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			errs = append(errs, fmt.Errorf("--memprofile: %w", err))
		}
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--memprofile: %w", err))
		}
	}
	return errors.Join(errs...)
}
