package ppo

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
)

// metrics.jsonl holds one JSON object per line, an EpisodeRecord after
// every episode ("type": "episode") and an UpdateRecord after every update
// ("type": "update"). The records' JSON tags are the metric names, defined
// there only: CleanRL's PPO names (charts/episodic_return,
// losses/approx_kl, ...) are kept; xrl's own metrics use the latency/,
// rules/, env/ and update/ prefixes. Numbers that are not finite are
// written as null.

// Float is a float64 that marshals non-finite values as JSON null.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler (null reads as NaN).
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	x, err := strconv.ParseFloat(string(b), 64)
	*f = Float(x)
	return err
}

// EpisodeRecord is the metrics line written after every episode.
type EpisodeRecord struct {
	Type string `json:"type"` // "episode"
	// Episode is the 1-based episode number; GlobalStep counts
	// environment steps over the run, this episode's included.
	Episode    int    `json:"episode"`
	GlobalStep int    `json:"global_step"`
	Seed       uint64 `json:"seed"` // the episode's environment seed
	// Model names the episode's model in a multi-model run (empty for
	// one model); the latencies and BestSpeedup are that model's.
	Model  string `json:"model,omitempty"`
	Return Float  `json:"charts/episodic_return"`
	Length int    `json:"charts/episodic_length"`
	// Latencies in microseconds: the start graph's, the last measured
	// and the lowest measured in the episode; Measurements counts the
	// steps that measured latency.
	InitialLatencyUS Float `json:"latency/initial_us"`
	FinalLatencyUS   Float `json:"latency/final_us"`
	BestLatencyUS    Float `json:"latency/best_us"`
	Measurements     int   `json:"latency/measurements"`
	// Speedup is initial / best latency of this episode; BestSpeedup the
	// best over the run so far.
	Speedup     Float `json:"charts/speedup"`
	BestSpeedup Float `json:"charts/best_speedup"`
	// RulesApplied counts the rewrites applied; Rules per rule name.
	RulesApplied int            `json:"rules/applied"`
	Rules        map[string]int `json:"rules/per_rule"`
	// MeanCandidates is the mean number of candidates per step.
	MeanCandidates Float `json:"env/mean_candidates"`
	// StopReason is "no-op", "no candidates" or "horizon".
	StopReason string `json:"stop_reason"`
}

// UpdateRecord is the metrics line written after every PPO update. Loss
// values are means over the update's minibatches; ExplainedVariance is
// over all collected steps (value estimates at collection time).
type UpdateRecord struct {
	Type              string `json:"type"` // "update"
	Update            int    `json:"update"`
	Episode           int    `json:"episode"`
	GlobalStep        int    `json:"global_step"`
	LearningRate      Float  `json:"charts/learning_rate"`
	ValueLoss         Float  `json:"losses/value_loss"`
	PolicyLoss        Float  `json:"losses/policy_loss"`
	Entropy           Float  `json:"losses/entropy"`
	OldApproxKL       Float  `json:"losses/old_approx_kl"`
	ApproxKL          Float  `json:"losses/approx_kl"`
	ClipFrac          Float  `json:"losses/clipfrac"`
	ExplainedVariance Float  `json:"losses/explained_variance"`
	// GradNorm is the mean global gradient norm before clipping.
	GradNorm Float `json:"losses/grad_norm"`
	// SPS is environment steps per second since the previous update (or
	// since the trainer started), update time included.
	SPS Float `json:"charts/SPS"`
	// Steps is the number of collected steps; Epochs the epochs run
	// (fewer than Config.Epochs after a target-KL stop); Minibatches the
	// gradient steps taken.
	Steps       int `json:"update/steps"`
	Epochs      int `json:"update/epochs"`
	Minibatches int `json:"update/minibatches"`
}

// metricsFile appends JSON lines to metrics.jsonl.
type metricsFile struct {
	f   *os.File
	w   *bufio.Writer
	off int64
}

// openMetrics opens path for appending after truncating it to offset
// bytes (the length the last checkpoint covers). A file shorter than
// offset is an error: lines the checkpoint relies on are missing.
func openMetrics(path string, offset int64) (*metricsFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if st.Size() < offset {
		f.Close()
		return nil, fmt.Errorf("metrics: %s has %d bytes but the checkpoint covers %d: the metric stream is incomplete", path, st.Size(), offset)
	}
	if err := f.Truncate(offset); err != nil {
		f.Close()
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return &metricsFile{f: f, w: bufio.NewWriter(f), off: offset}, nil
}

// write appends one record as a JSON line.
func (m *metricsFile) write(rec any) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	b = append(b, '\n')
	if _, err := m.w.Write(b); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	m.off += int64(len(b))
	return nil
}

// sync flushes and syncs the file and returns its length.
func (m *metricsFile) sync() (int64, error) {
	if err := m.w.Flush(); err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	if err := m.f.Sync(); err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	return m.off, nil
}

func (m *metricsFile) close() error {
	_, err := m.sync()
	return errors.Join(err, m.f.Close())
}

// Records is the content of a metrics file.
type Records struct {
	Episodes []EpisodeRecord
	Updates  []UpdateRecord
}

// ReadMetrics reads a metrics.jsonl file. A truncated last line (a run
// killed while writing) is ignored.
func ReadMetrics(path string) (*Records, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	out := &Records{}
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			if !more(sc) {
				break // a partial last line
			}
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		switch head.Type {
		case "episode":
			var r EpisodeRecord
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			out.Episodes = append(out.Episodes, r)
		case "update":
			var r UpdateRecord
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			out.Updates = append(out.Updates, r)
		default:
			return nil, fmt.Errorf("%s:%d: unknown record type %q", path, line, head.Type)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// more reports whether the scanner has another line (consuming it: only
// used to tell a bad last line from a bad line in the middle).
func more(sc *bufio.Scanner) bool { return sc.Scan() }

// RuleNames returns the rule names in recs, most applied first.
func (r *Records) RuleNames() []string {
	total := map[string]int{}
	for _, e := range r.Episodes {
		for k, v := range e.Rules {
			total[k] += v
		}
	}
	names := make([]string, 0, len(total))
	for k := range total {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if total[names[i]] != total[names[j]] {
			return total[names[i]] > total[names[j]]
		}
		return names[i] < names[j]
	})
	return names
}
