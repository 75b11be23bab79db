package measure

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) the process has used so
// far, or 0 where the platform does not report it. Tests replace it.
var cpuTime = func() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
