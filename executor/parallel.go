package executor

import "sync"

// minParallelWork is the amount of work (roughly, inner-loop element
// operations) below which a loop runs on the calling goroutine: starting
// goroutines costs about a microsecond, worth it only for larger loops.
const minParallelWork = 1 << 15

// parallelFor calls fn over [0, n) split into contiguous chunks run
// concurrently on up to threads goroutines (the calling one included).
// cost is the approximate work per item; small loops run inline. fn must be
// safe to call concurrently on disjoint ranges.
func parallelFor(threads, n, cost int, fn func(lo, hi int)) {
	parallelForW(threads, n, cost, func(_, lo, hi int) { fn(lo, hi) })
}

// parallelForW is parallelFor that also passes the chunk's worker number
// (0 <= worker < threads), for per-worker scratch space.
func parallelForW(threads, n, cost int, fn func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	chunks := threads
	if cost < 1 {
		cost = 1
	}
	if max := n * cost / minParallelWork; max < chunks {
		chunks = max
	}
	if chunks > n {
		chunks = n
	}
	if chunks <= 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(chunks - 1)
	for c := 1; c < chunks; c++ {
		lo, hi := c*n/chunks, (c+1)*n/chunks
		go func() {
			defer wg.Done()
			fn(c, lo, hi)
		}()
	}
	fn(0, 0, n/chunks)
	wg.Wait()
}

// chunks returns how many pieces parallelFor would split a loop into.
func chunks(threads, n, cost int) int {
	c := min(threads, n*max(cost, 1)/minParallelWork)
	return max(c, 1)
}
