//go:build unix

package pipeline

import "syscall"

// cpuSeconds returns the user+system CPU time of the process so far: on a
// machine shared with other work it varies less than the wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
