package pipeline

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// The runs of the per-op profile: untimed warm-up runs, then profiled
// runs, each node counting with its lower-quartile time over them.
const (
	opProfileWarmup = 3
	opProfileRuns   = 24
)

// opProfileMinShare is the share below which an operator type, in both
// models, is folded into one "other" line of the text table (the JSON
// report keeps every row).
const opProfileMinShare = 0.005

// OpProfileReport is where ONNX Runtime spends its time in the original
// and in the written model, per operator type, from its own profiler:
// after its graph optimisation, so its fusions (com.microsoft Attention,
// SkipLayerNormalization, FusedMatMul ...) appear as the ops it ran.
// Shares are of the summed kernel times of one run (the time between
// kernels and the profiler's own cost are left out).
type OpProfileReport struct {
	// Backend is the runtime profiled; Runs the profiled runs of each
	// model.
	Backend string `json:"backend"`
	Runs    int    `json:"runs"`
	// Before is the original's profile, After the written model's.
	Before ProfileTotals `json:"before"`
	After  ProfileTotals `json:"after"`
	// Ops has one row per operator type that ran in either model, the
	// largest time (before or after) first.
	Ops []OpProfileRow `json:"ops"`
}

// ProfileTotals sums up one model's profile.
type ProfileTotals struct {
	// Time is the summed kernel times of one run; GEMMShare the share of
	// it spent in GEMM-like operators (measure.IsGEMMLike), the rest
	// being everything else.
	Time      time.Duration `json:"time_ns"`
	GEMMShare float64       `json:"gemm_share"`
}

// OpProfileRow is one operator type's time in both models.
type OpProfileRow struct {
	Op     string  `json:"op"`
	Before OpShare `json:"before"`
	After  OpShare `json:"after"`
}

// OpShare is one operator type's time in one model: its nodes' summed
// kernel time per run, that time's share of the model's, and the number
// of its executed nodes (0: the op did not run).
type OpShare struct {
	Time  time.Duration `json:"time_ns"`
	Share float64       `json:"share"`
	Nodes int           `json:"nodes"`
}

// add adds o's time, share and nodes to s.
func (s *OpShare) add(o OpShare) {
	s.Time, s.Share, s.Nodes = s.Time+o.Time, s.Share+o.Share, s.Nodes+o.Nodes
}

// ProfileOps profiles the original and the written model on the run's
// backend, each as the file a user has when the backend can load it as
// given (src, the original's file, and dst, the file written from out),
// else as the bound model, and returns the per-op comparison. It returns
// nil, saying why on w, when the backend has no profiler (the Go
// executor) or profiling fails: the report is extra information, the
// written model stands.
func (s *Start) ProfileOps(w io.Writer, src, dst string, out *graph.Model, m Measurement, seed uint64) *OpProfileReport {
	be, _, err := s.bench(m, seed)
	if u, ok := be.(interface{ Unwrap() measure.Backend }); ok {
		be = u.Unwrap()
	}
	if err == nil {
		if _, ok := be.(measure.Profiler); !ok {
			err = fmt.Errorf("the %s backend has no per-node profiler (ONNX Runtime has one)", be.Name())
		}
	}
	if err != nil {
		fmt.Fprintf(w, "per-op profile: not available: %v\n", err)
		return nil
	}
	fmt.Fprintf(w, "per-op profile: profiling the original and the written model in %s (%d runs each)\n", be.Name(), opProfileRuns)
	var profiles [2]*measure.Profile
	for i, side := range []struct {
		what, path string
		model      *graph.Model
	}{{"the original", src, s.Orig}, {"the written model", dst, out}} {
		if i == 1 && out == s.Orig {
			profiles[1] = profiles[0]
			break
		}
		o := measure.ModelFile{Model: side.model}
		if side.path != "" {
			if o.File, err = SelfContained(side.path); err != nil {
				fmt.Fprintf(w, "per-op profile: not available: %v\n", err)
				return nil
			}
		}
		if profiles[i], err = o.Profile(be, opProfileWarmup, opProfileRuns); err != nil {
			fmt.Fprintf(w, "per-op profile: not available: %s: %v\n", side.what, err)
			return nil
		}
	}
	r := newOpProfileReport(profiles[0], profiles[1])
	r.Backend, r.Runs = be.Name(), opProfileRuns
	return r
}

// RunOpsOfFile returns the operator types ONNX Runtime (the backend be)
// ends up running for the model file at path, its inputs bound to shapes
// (see measure.RunOps): the file as it is, so what it shows is what a user
// of the file gets, ONNX Runtime's own fusions included.
func RunOpsOfFile(be measure.Backend, path string, shapes map[string][]int) ([]string, error) {
	m, err := LoadBound(path, shapes)
	if err != nil {
		return nil, err
	}
	data, err := SelfContained(path)
	if err != nil {
		return nil, err
	}
	ops, err := measure.RunOps(be, measure.ModelFile{Model: m, File: data})
	if err != nil {
		return nil, fmt.Errorf("%s: the ops %s runs: %w", path, be.Name(), err)
	}
	return ops, nil
}

// newOpProfileReport compares the profiles of the original and of the
// written model per operator type.
func newOpProfileReport(before, after *measure.Profile) *OpProfileReport {
	r := &OpProfileReport{
		Before: ProfileTotals{Time: before.Sum(), GEMMShare: before.GEMMShare()},
		After:  ProfileTotals{Time: after.Sum(), GEMMShare: after.GEMMShare()},
	}
	index := map[string]int{}
	side := func(p *measure.Profile, pick func(*OpProfileRow) *OpShare) {
		for _, o := range p.ByOp() {
			i, ok := index[o.Op]
			if !ok {
				i = len(r.Ops)
				index[o.Op] = i
				r.Ops = append(r.Ops, OpProfileRow{Op: o.Op})
			}
			*pick(&r.Ops[i]) = OpShare{Time: o.Time, Share: o.Share, Nodes: o.Nodes}
		}
	}
	side(before, func(row *OpProfileRow) *OpShare { return &row.Before })
	side(after, func(row *OpProfileRow) *OpShare { return &row.After })
	sort.SliceStable(r.Ops, func(i, j int) bool {
		a, b := r.Ops[i], r.Ops[j]
		if ma, mb := max(a.Before.Time, a.After.Time), max(b.Before.Time, b.After.Time); ma != mb {
			return ma > mb
		}
		return a.Op < b.Op
	})
	return r
}

// WriteText prints the comparison as a table (op type, share before and
// after, milliseconds per run before and after; operator types under half
// a percent in both models on one "other" line; a dash where the op did
// not run), then the GEMM-like share against everything else.
func (r *OpProfileReport) WriteText(w io.Writer) error {
	rows := [][]string{{"op type", "before %", "after %", "before ms", "after ms"}}
	other := OpProfileRow{}
	others := 0
	for _, o := range r.Ops {
		if o.Before.Share < opProfileMinShare && o.After.Share < opProfileMinShare {
			other.Before.add(o.Before)
			other.After.add(o.After)
			others++
			continue
		}
		rows = append(rows, o.cells())
	}
	if others > 0 {
		other.Op = fmt.Sprintf("%d other op types", others)
		if others == 1 {
			other.Op = "1 other op type"
		}
		rows = append(rows, other.cells())
	}
	rows = append(rows, []string{"total", "100%", "100%", millis(r.Before.Time), millis(r.After.Time)})
	width := 0
	for _, row := range rows {
		width = max(width, len(row[0]))
	}
	fmt.Fprintf(w, "time per op type in %s (its profiler, %d runs; shares of the summed kernel times per run):\n", r.Backend, r.Runs)
	for _, row := range rows {
		fmt.Fprintf(w, "  %-*s %9s %9s %10s %10s\n", width, row[0], row[1], row[2], row[3], row[4])
	}
	b, a := r.Before.GEMMShare, r.After.GEMMShare
	_, err := fmt.Fprintf(w, "GEMM-like (MatMul, Gemm, FusedMatMul, Attention, Conv ...): %.1f%% -> %.1f%% of kernel time; everything else %.1f%% -> %.1f%%\n",
		100*b, 100*a, 100*(1-b), 100*(1-a))
	return err
}

// cells returns the row's table cells: dashes on a side where the op did
// not run.
func (o OpProfileRow) cells() []string {
	side := func(s OpShare) (string, string) {
		if s.Nodes == 0 {
			return "-", "-"
		}
		return fmt.Sprintf("%.1f%%", 100*s.Share), millis(s.Time)
	}
	bp, bm := side(o.Before)
	ap, am := side(o.After)
	return []string{o.Op, bp, ap, bm, am}
}

// millis formats d in milliseconds with three decimals.
func millis(d time.Duration) string {
	return fmt.Sprintf("%.3f", float64(d)/float64(time.Millisecond))
}
