// Command speedcheck measures how much faster one ONNX file runs than
// another in ONNX Runtime, the way a user of the two files would, and
// apart from the measurement code of xrl optimize: it loads the files as
// they are on disk into ONNX Runtime (through onnxruntime_go only; no xrl
// package encodes, binds or runs them), times them interleaved in blocks
// (8 runs of A, 8 of B, then B first, alternately; run k of one block is
// paired with run k of the next) at 2 intra-op threads with ONNX Runtime's
// default graph optimisations and its threads not spinning between runs,
// and reports the median of the pair ratios latency(A)/latency(B), with a
// distribution-free 99% confidence interval of that median from the order
// statistics, and the ratio of the two median latencies beside it.
// Blocks, not single runs, alternate because a user calls one model again
// and again: alternating every run charges each model the other's cache
// footprint, which on sub-millisecond transformers moved the ratio by 1-3%
// (-block 1 keeps that scheme; docs/perf.md, "Blocks in the check"). The
// pairs are timed in -rounds rounds, each with fresh sessions of both
// files: two sessions of one file can differ by a few percent (more below
// a millisecond), and a check of files, not of two particular sessions,
// pools several. The interval is that of the pooled pairs; the median of
// each round is printed too, as the spread between sessions.
// scripts/check-speedup runs it; scripts/check-corpus runs it on what
// xrl optimize wrote for each corpus model.
//
//	go run ./tools/speedcheck [-shape ids=1x128] [-threads 2] [-pairs 300] [-block 8] [-min-time 10s] [-warmup 2s] [-lib PATH] A.onnx B.onnx
//
// Dimensions a model leaves symbolic take their size from -shape, else 1.
// Inputs are seeded random data: floats uniform in [-1, 1), integers 0 or
// 1 (valid as token ids, indices and flags), booleans fair coin flips; A
// and B run on the same tensors. The last line, the one scripts read,
// is "speedup S (99% CI L-H; ...)".
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	ortgo "github.com/yalue/onnxruntime_go"
)

// shapeFlags collects repeated -shape name=AxB flags.
type shapeFlags map[string][]int64

func (s shapeFlags) String() string { return fmt.Sprint(map[string][]int64(s)) }

func (s shapeFlags) Set(v string) error {
	name, dims, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=AxB..., got %q", v)
	}
	var out []int64
	for _, d := range strings.Split(dims, "x") {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("bad dimension %q in %q", d, v)
		}
		out = append(out, n)
	}
	s[name] = out
	return nil
}

// options are the command's settings.
type options struct {
	shapes                 shapeFlags
	threads, pairs, rounds int
	block                  int
	minTime, maxTime       time.Duration
	warmup                 time.Duration
	lib                    string
	seed                   uint64
	fileA, fileB           string
}

func main() {
	o := options{shapes: shapeFlags{}}
	flag.Var(o.shapes, "shape", "bind a symbolic input dimension: name=AxB (repeatable)")
	flag.IntVar(&o.threads, "threads", 2, "ONNX Runtime intra-op threads")
	flag.IntVar(&o.pairs, "pairs", 300, "least number of timed pairs, over all rounds")
	flag.IntVar(&o.rounds, "rounds", 5, "rounds, each with fresh sessions of both files")
	flag.IntVar(&o.block, "block", 8, "runs of one file in a row before the other's (as xrl optimize's --block): run k of a block of A is paired with run k of the next block of B")
	flag.DurationVar(&o.minTime, "min-time", 10*time.Second, "least time spent timing, over all rounds")
	flag.DurationVar(&o.maxTime, "max-time", 2*time.Minute, "most time spent timing, over all rounds")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "untimed alternating runs before each round's timing")
	flag.StringVar(&o.lib, "lib", "", "ONNX Runtime's shared library (default $XRL_ORT_LIB, else third_party/onnxruntime/libonnxruntime.so.1 here or above)")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the random inputs")
	flag.Parse()
	if flag.NArg() != 2 || o.pairs < 10 || o.threads < 1 || o.rounds < 1 || o.block < 1 {
		fmt.Fprintln(os.Stderr, "usage: speedcheck [flags] A.onnx B.onnx (-pairs at least 10, -threads, -rounds and -block at least 1)")
		flag.PrintDefaults()
		os.Exit(2)
	}
	o.fileA, o.fileB = flag.Arg(0), flag.Arg(1)
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "speedcheck:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	lib, err := library(o.lib)
	if err != nil {
		return err
	}
	ortgo.SetSharedLibraryPath(lib)
	if err := ortgo.InitializeEnvironment(ortgo.WithLogLevelError()); err != nil {
		return fmt.Errorf("loading ONNX Runtime from %s: %w", lib, err)
	}
	defer ortgo.DestroyEnvironment()
	infos, _, err := ortgo.GetInputOutputInfo(o.fileA)
	if err != nil {
		return fmt.Errorf("%s: %w", o.fileA, err)
	}
	in, err := randomInputs(infos, o.shapes, o.seed)
	if err != nil {
		return fmt.Errorf("%s: %w", o.fileA, err)
	}
	defer destroy(in)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var rounds []round
	for r := range o.rounds {
		rd, err := timeRound(r, in, o)
		if err != nil {
			return err
		}
		rounds = append(rounds, rd)
	}
	report(rounds, o)
	return nil
}

// round is the pairs timed with one session of each file.
type round struct{ ta, tb []time.Duration }

// timeRound opens fresh sessions of both files (A first in even rounds, B
// first in odd ones, so that neither always gets the first allocations)
// and times its share of the pairs and of the time.
func timeRound(r int, in []ortgo.Value, o options) (round, error) {
	first, second := o.fileA, o.fileB
	if r%2 == 1 {
		first, second = second, first
	}
	m1, err := open(first, o.threads)
	if err != nil {
		return round{}, err
	}
	defer m1.close()
	m2, err := open(second, o.threads)
	if err != nil {
		return round{}, err
	}
	defer m2.close()
	a, b := m1, m2
	if r%2 == 1 {
		a, b = m2, m1
	}
	if err := sameInputs(a, b); err != nil {
		return round{}, err
	}
	share := o
	share.pairs = (o.pairs + o.rounds - 1) / o.rounds
	share.minTime, share.maxTime = o.minTime/time.Duration(o.rounds), o.maxTime/time.Duration(o.rounds)
	ta, tb, err := timePairs(a, b, in, share)
	return round{ta, tb}, err
}

// library finds ONNX Runtime's shared library.
func library(flagged string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	if p := os.Getenv("XRL_ORT_LIB"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "third_party", "onnxruntime", "libonnxruntime.so.1")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(dir) == dir {
			return "", errors.New("ONNX Runtime's library not found: pass -lib or set XRL_ORT_LIB (scripts/setup installs it in third_party/onnxruntime)")
		}
		dir = filepath.Dir(dir)
	}
}

// timePairs warms both models up, alternating, then times pairs (A then
// B, B then A, alternately; with o.block > 1, blocks of o.block runs of
// one then of the other, run k of one block paired with run k of the
// next) until o.pairs pairs and o.minTime are done, or o.maxTime.
func timePairs(a, b *model, in []ortgo.Value, o options) (ta, tb []time.Duration, err error) {
	for start, i := time.Now(), 0; i < 10 || time.Since(start) < o.warmup; i++ {
		if _, err := a.runOnce(in); err != nil {
			return nil, nil, err
		}
		if _, err := b.runOnce(in); err != nil {
			return nil, nil, err
		}
	}
	runtime.GC()
	start := time.Now()
	runs := func(m *model) ([]time.Duration, error) {
		ds := make([]time.Duration, o.block)
		for k := range ds {
			d, err := m.runOnce(in)
			if err != nil {
				return nil, err
			}
			ds[k] = d
		}
		return ds, nil
	}
	for i := 0; ; i++ {
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		d1, err := runs(first)
		if err != nil {
			return nil, nil, err
		}
		d2, err := runs(second)
		if err != nil {
			return nil, nil, err
		}
		if i%2 == 1 {
			d1, d2 = d2, d1
		}
		ta, tb = append(ta, d1...), append(tb, d2...)
		el := time.Since(start)
		if (len(ta) >= o.pairs && el >= o.minTime) || el >= o.maxTime {
			return ta, tb, nil
		}
	}
}
