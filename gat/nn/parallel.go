package nn

import (
	"runtime"
	"sync"
)

// Parallel runs f over [0, n) split into at most GOMAXPROCS contiguous
// chunks of at least grain items each, and waits for them. Chunk
// boundaries depend only on n, grain and GOMAXPROCS, so results that are
// computed per item are deterministic.
func Parallel(n, grain int, f func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if grain < 1 {
		grain = 1
	}
	if q := n / grain; q < p {
		p = q
	}
	if p <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(p - 1)
	for i := 1; i < p; i++ {
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(i*n/p, (i+1)*n/p)
	}
	f(0, n/p)
	wg.Wait()
}
