package train

import (
	"fmt"
	"strings"
	"time"
)

// Progress is where a PPO run stands after an episode, for progress
// displays.
type Progress struct {
	// Episode is the episode just finished, Episodes the run's total.
	Episode, Episodes int
	// Model names the episode's model in a multi-model run.
	Model string
	// Return is the episode's return, BestSpeedup the best speedup of the
	// run so far.
	Return, BestSpeedup float64
	// PerEpisode is the wall time per episode of this session (from the
	// start of Run, preparation included), Left the time it predicts for
	// the episodes to come.
	PerEpisode, Left time.Duration
}

// String formats p as one line, such as
// "episode 5/10 [==========          ] return 0.12, best 1.031x, 1.2s/episode, ETA 6s".
func (p Progress) String() string {
	model := ""
	if p.Model != "" {
		model = " " + p.Model
	}
	return fmt.Sprintf("episode %d/%d %s%s return %.2f, best %.3fx, %v/episode, ETA %v",
		p.Episode, p.Episodes, bar(p.Episode, p.Episodes, 20), model, p.Return, p.BestSpeedup,
		p.PerEpisode.Round(time.Millisecond), p.Left.Round(time.Second))
}

// bar draws a text progress bar of width cells.
func bar(done, total, width int) string {
	if total <= 0 {
		return ""
	}
	n := min(width, done*width/total)
	return "[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "]"
}
