package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/measure/goexec"
)

func TestScoreString(t *testing.T) {
	s, err := Prepare(tinyBERT(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := executor.PlannedMemory(s.Model.Graph)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		lm    measure.LatencyModel
		score time.Duration
		want  string
	}{
		{"latency", measure.Roofline{}, 1234567 * time.Nanosecond, "1.235ms"},
		{"memory", measure.Cached(measure.MemoryObjective{Memory: goexec.MemoryModel{}}), measure.MemoryScore(measure.Bytes(mem.Total())), measure.Bytes(mem.Total()).String()},
	} {
		got := scoreString(tc.lm, s.Model, tc.score)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if tc.name == "memory" && !strings.HasSuffix(got, " MiB") {
			t.Errorf("memory score %q is not in MiB", got)
		}
	}
}
