package cli

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress reports the state of long work on a stream. On a terminal it
// keeps one self-overwriting line updated a few times per second; on a
// file or pipe it writes a plain line every few seconds.
type progress struct {
	w     io.Writer
	label string
	tty   bool
	every time.Duration
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, label string) *progress {
	p := &progress{w: w, label: label, every: 5 * time.Second}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty, p.every = true, 200*time.Millisecond
		}
	}
	return p
}

func (p *progress) update(format string, args ...any) {
	if time.Since(p.last) < p.every {
		return
	}
	p.last = time.Now()
	msg := fmt.Sprintf(format, args...)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s: %s", p.label, msg)
		p.shown = true
		return
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.label, msg)
}

// done clears the progress line.
func (p *progress) done() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// above returns a writer to w for lines shown between updates: a write
// first clears the progress line, and the next update draws at once.
func (p *progress) above(w io.Writer) io.Writer { return aboveWriter{p, w} }

type aboveWriter struct {
	p *progress
	w io.Writer
}

func (a aboveWriter) Write(b []byte) (int, error) {
	a.p.done()
	a.p.last = time.Time{}
	return a.w.Write(b)
}
