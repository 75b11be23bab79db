// Command benchplot draws the speedup chart of docs/results.md: one group
// of bars per model, one bar per optimiser, the bar's height the measured
// ONNX Runtime speedup of the model written (before/after latency; the
// 99% confidence intervals are in the table), and a line at 1.
//
//	go run ./scripts/benchplot -in results.tsv -o docs/results-speedups.png
//
// The input has one tab-separated line per run: model, optimiser,
// speedup, low and high end of its 99% confidence interval (checked, not
// drawn).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image/color"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// run is one line of the input.
type run struct {
	model, optimiser string
	speedup, lo, hi  float64
}

func main() {
	in := flag.String("in", "", "tab-separated runs: model, optimiser, speedup, CI low, CI high")
	out := flag.String("o", "speedups.png", "PNG file to write")
	flag.Parse()
	if err := draw(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
}

func read(path string) ([]run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []run
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 tab-separated fields, got %d", path, line, len(fs))
		}
		r := run{model: fs[0], optimiser: fs[1]}
		for i, p := range []*float64{&r.speedup, &r.lo, &r.hi} {
			if *p, err = strconv.ParseFloat(fs[2+i], 64); err != nil {
				return nil, fmt.Errorf("%s:%d: field %d: %v", path, line, 3+i, err)
			}
		}
		if r.lo > r.speedup || r.speedup > r.hi {
			return nil, fmt.Errorf("%s:%d: speedup %g outside its interval [%g, %g]", path, line, r.speedup, r.lo, r.hi)
		}
		runs = append(runs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no runs", path)
	}
	return runs, nil
}

func draw(in, out string) error {
	runs, err := read(in)
	if err != nil {
		return err
	}
	var models, opts []string
	for _, r := range runs {
		if !slices.Contains(models, r.model) {
			models = append(models, r.model)
		}
		if !slices.Contains(opts, r.optimiser) {
			opts = append(opts, r.optimiser)
		}
	}
	p := plot.New()
	p.Title.Text = "ONNX Runtime speedup of the written model"
	p.Y.Label.Text = "speedup (before / after)"
	w := vg.Points(10)
	for j, o := range opts {
		vals := make(plotter.Values, len(models))
		for i, m := range models {
			vals[i] = 1
			for _, r := range runs {
				if r.model == m && r.optimiser == o {
					vals[i] = r.speedup
				}
			}
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		b.Color = plotutil.Color(j)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(j)-float64(len(opts)-1)/2)
		p.Add(b)
		p.Legend.Add(o, b)
	}
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Color = color.Gray{Y: 80}
	one.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(one)
	p.NominalX(models...)
	p.X.Tick.Label.Rotation = 0.5
	p.X.Tick.Label.XAlign = -1
	p.X.Tick.Label.YAlign = -0.2
	p.Legend.Top = true
	p.Y.Min = 0.8
	return p.Save(vg.Length(max(6, len(models)))*vg.Inch*0.8, 4*vg.Inch, out)
}
