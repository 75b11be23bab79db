package pipeline

import (
	"io"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/verify"
)

// runLog is the progress writer Optimize hands to the steps of a run. It
// passes their lines on to the user's writer and keeps, for the Report,
// the verification results of each model verified (Verify notes them
// with noteVerified), so that the checks of whichever model is written can
// be reported without verifying it again.
type runLog struct {
	io.Writer
	checks map[*graph.Model][]verify.RuntimeResult
}

func newRunLog(w io.Writer) *runLog {
	return &runLog{Writer: w, checks: map[*graph.Model][]verify.RuntimeResult{}}
}

// noteVerified records results, the verification of out, when w is a
// runLog; any other writer only gets the printed lines.
func noteVerified(w io.Writer, out *graph.Model, results []verify.RuntimeResult) {
	if l, ok := w.(*runLog); ok {
		l.checks[out] = results
	}
}

// runtimeChecks returns the recorded verification of m, one entry a
// runtime (none when m was not verified, as the original is not).
func (l *runLog) runtimeChecks(m *graph.Model) []RuntimeCheck {
	out := []RuntimeCheck{}
	for _, r := range l.checks[m] {
		c := RuntimeCheck{Runtime: r.Runtime, OK: r.Skipped == nil && r.Result.OK, Line: r.String()}
		if r.Skipped != nil {
			c.Skipped = r.Skipped.Error()
		} else {
			c.MaxRelL2, c.MaxRatio = finite(r.Result.MaxRelL2), finite(r.Result.MaxRatio)
		}
		out = append(out, c)
	}
	return out
}
