// Package sysmem reports how much memory the machine can still give to
// the process, so that commands can refuse tensors that cannot fit before
// allocating them (instead of dying in the Go runtime's out-of-memory
// fatal error).
package sysmem

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Available returns the bytes of memory available to the process: the
// kernel's MemAvailable (Linux /proc/meminfo), lowered to the Go memory
// limit (GOMEMLIMIT) when that is smaller. ok is false when neither is
// known.
func Available() (bytes int64, ok bool) {
	bytes, ok = memAvailable()
	if lim := debug.SetMemoryLimit(-1); lim > 0 && lim < 1<<62 && (!ok || lim < bytes) {
		bytes, ok = lim, true
	}
	return bytes, ok
}

// memAvailable reads MemAvailable from /proc/meminfo.
func memAvailable() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || kb <= 0 {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// CheckGraph reports a value of g whose static shape needs more memory
// than is available, or has more than graph.MaxElements elements, naming
// the input or node (see graph.Graph.CheckMemory). Without a known limit
// it checks the element counts only.
func CheckGraph(g *graph.Graph) error {
	limit, ok := Available()
	if !ok {
		limit = math.MaxInt64
	}
	return g.CheckMemory(limit, Describe(limit))
}

// CheckBytes reports an allocation of need bytes (what says what it is
// for) that exceeds the memory available.
func CheckBytes(need int64, what string) error {
	if limit, ok := Available(); ok && need > limit {
		return fmt.Errorf("%s needs %s, more than %s", what, graph.FormatBytes(need), Describe(limit))
	}
	return nil
}

// Describe names a memory limit for messages.
func Describe(limit int64) string {
	return "the " + graph.FormatBytes(limit) + " of memory available"
}
