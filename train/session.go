package train

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/ppo"
)

// session is an open PPO run: the rewards' latency model and the trainer
// of its tasks.
type session struct {
	cfg *Config
	lm  measure.LatencyModel
	tr  *ppo.Trainer
	// verb is "training" or "resuming at episode N of".
	verb string
	// episodes counts the episodes run in this session.
	episodes int
	cleanup  func(err error, episodes int)
}

// openSession creates the run directory (or reopens it on Resume), the
// rewards' latency model and the trainer of tasks; info adds to the run's
// recorded settings. The caller must call close with the run's error.
func openSession(ctx context.Context, cfg *Config, start time.Time, tasks []ppo.Task, info map[string]any) (*session, error) {
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	lm, cleanup, err := openRun(cfg)
	if err != nil {
		return nil, err
	}
	s := &session{cfg: cfg, lm: lm, cleanup: cleanup}
	for i := range tasks {
		tasks[i].Env.Latency = lm
	}
	info["runtime"], info["rules"], info["exp_name"] = lm.Name(), cfg.Rules, cfg.ExpName
	s.tr, s.verb, err = s.openTrainer(tasks, s.options(start, info))
	if err != nil {
		cleanup(err, 0)
		return nil, err
	}
	return s, nil
}

// options returns the trainer options that count the session's episodes
// and report progress and updates.
func (s *session) options(start time.Time, info map[string]any) ppo.Options {
	topts := ppo.Options{RunInfo: info}
	topts.OnEpisode = func(r ppo.EpisodeRecord) {
		s.episodes++
		if s.cfg.Progress == nil {
			return
		}
		total := s.tr.Config().Episodes
		per := time.Since(start) / time.Duration(s.episodes)
		s.cfg.Progress(Progress{Episode: r.Episode, Episodes: total, Model: r.Model, Return: float64(r.Return),
			BestSpeedup: float64(r.BestSpeedup), PerEpisode: per, Left: per * time.Duration(total-r.Episode)})
	}
	topts.OnUpdate = func(u ppo.UpdateRecord) {
		fmt.Fprintf(s.cfg.Log, "update %d: episode %d, step %d, policy loss %.4f, value loss %.3f, entropy %.3f, approx_kl %.4f, clipfrac %.3f, SPS %.1f\n",
			u.Update, u.Episode, u.GlobalStep, float64(u.PolicyLoss), float64(u.ValueLoss), float64(u.Entropy),
			float64(u.ApproxKL), float64(u.ClipFrac), float64(u.SPS))
	}
	return topts
}

// openTrainer starts the trainer of tasks in the run directory, or
// resumes it; the verb describes which for the start line.
func (s *session) openTrainer(tasks []ppo.Task, topts ppo.Options) (*ppo.Trainer, string, error) {
	if !s.cfg.Resume {
		tr, err := ppo.NewTasks(s.cfg.Dir, s.cfg.PPO, tasks, topts)
		return tr, "training", err
	}
	tr, err := ppo.ResumeTasks(s.cfg.Dir, s.cfg.Episodes, tasks, topts)
	if err != nil {
		return nil, "", err
	}
	return tr, fmt.Sprintf("resuming at episode %d of", tr.State().Episode), nil
}

// run trains until the end or until ctx is cancelled, then closes the
// trainer.
func (s *session) run(ctx context.Context) error {
	err := s.tr.Run(ctx)
	if errors.Is(err, context.Canceled) {
		st := s.tr.State()
		return &InterruptedError{Dir: s.cfg.Dir, Episode: st.Episode, Update: st.Update}
	}
	if err != nil {
		return err
	}
	return s.tr.Close()
}

// close closes the trainer and, when err ends a session that ran no
// episode, removes a run directory the session created.
func (s *session) close(err error) {
	s.tr.Close()
	s.cleanup(err, s.episodes)
}

// report returns the report of the finished run, its training having
// taken took.
func (s *session) report(took time.Duration) *Report {
	st := s.tr.State()
	return &Report{Algo: AlgoPPO, Dir: s.cfg.Dir, Latency: s.lm.Name(), Episodes: st.Episode, Updates: st.Update,
		Steps: st.GlobalStep, Took: took, Initial: st.InitialLatency, Best: st.BestLatency, BestEpisode: st.BestEpisode}
}
