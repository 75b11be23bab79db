package measure

import "runtime"

// onOneThread locks the calling goroutine to its OS thread for a timing
// and returns the call that unlocks it (defer onOneThread()()). Go moves
// a goroutine between OS threads around its cgo calls, and ONNX Runtime's
// calling thread does part of each run's parallel work, with state of its
// own kept per thread: run from whichever thread the goroutine was on, the
// corpus encoder and its written model ran 5-7% slower than from one
// thread (medians 7.59 -> 5.67 ms against 7.16 -> 5.20 ms, back to back),
// and the optimised one more so, so that `xrl compare` read 1.329-1.338x
// where the same comparison on one thread read 1.377-1.378x and the
// independent check (tools/speedcheck, one thread) 1.359-1.363x. A user's
// program calls a session from one thread, as the check does.
func onOneThread() (unlock func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
