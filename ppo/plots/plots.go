package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/xrl-dev/xrl/internal/atomicfile"
	"github.com/xrl-dev/xrl/ppo"
)

// Files written by WriteAll.
const (
	ReturnFile  = "return.png"
	SpeedupFile = "speedup.png"
	RulesFile   = "rules.png"
)

// WriteAll reads dir's metrics.jsonl and writes the three charts into
// dir. It returns the paths written.
func WriteAll(dir string) ([]string, error) {
	recs, err := ppo.ReadMetrics(filepath.Join(dir, ppo.MetricsFile))
	if err != nil {
		return nil, err
	}
	if len(recs.Episodes) == 0 {
		return nil, errors.New("plots: no episodes recorded yet")
	}
	var out []string
	for _, c := range []struct {
		file string
		fn   func(*ppo.Records, string) error
	}{{ReturnFile, Return}, {SpeedupFile, Speedup}, {RulesFile, Rules}} {
		p := filepath.Join(dir, c.file)
		if err := c.fn(recs, p); err != nil {
			return out, fmt.Errorf("plots: %s: %w", c.file, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// movingAverage returns the mean of the last w values at each index.
func movingAverage(y []float64, w int) []float64 {
	out := make([]float64, len(y))
	var s float64
	n := 0
	for i, v := range y {
		s += v
		n++
		if n > w {
			s -= y[i-w]
			n = w
		}
		out[i] = s / float64(n)
	}
	return out
}

func xys(y []float64) plotter.XYs {
	pts := make(plotter.XYs, 0, len(y))
	for i, v := range y {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			pts = append(pts, plotter.XY{X: float64(i + 1), Y: v})
		}
	}
	return pts
}

// window is the moving-average width for n episodes.
func window(n int) int { return max(1, min(50, n/10)) }

var (
	faint = color.RGBA{R: 120, G: 150, B: 200, A: 255}
	dark  = color.RGBA{R: 20, G: 40, B: 140, A: 255}
	red   = color.RGBA{R: 200, G: 40, B: 30, A: 255}
)

// perEpisode returns a chart titled title of one value per episode (y,
// labelled ylabel), drawn as faint points, and those points.
func perEpisode(title, ylabel string, y []float64) (*plot.Plot, *plotter.Scatter, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "episode"
	p.Y.Label.Text = ylabel
	sc, err := plotter.NewScatter(xys(y))
	if err != nil {
		return nil, nil, err
	}
	sc.GlyphStyle.Color = faint
	sc.GlyphStyle.Radius = vg.Points(1.5)
	return p, sc, nil
}

// Return charts the episodic return and its moving average.
func Return(recs *ppo.Records, path string) error {
	y := make([]float64, len(recs.Episodes))
	for i, e := range recs.Episodes {
		y[i] = float64(e.Return)
	}
	p, sc, err := perEpisode("Episodic return", "return", y)
	if err != nil {
		return err
	}
	w := window(len(y))
	ma, err := plotter.NewLine(xys(movingAverage(y, w)))
	if err != nil {
		return err
	}
	ma.Color, ma.Width = dark, vg.Points(1.5)
	p.Add(plotter.NewGrid(), sc, ma)
	p.Legend.Add("episode", sc)
	p.Legend.Add(fmt.Sprintf("mean of last %d", w), ma)
	p.Legend.Top, p.Legend.Left = false, false
	return save(p, 8*vg.Inch, 4*vg.Inch, path)
}

// Speedup charts each episode's speedup (initial / best latency in the
// episode) and the best over the run so far (one line per model in a
// multi-model run).
func Speedup(recs *ppo.Records, path string) error {
	ep := make([]float64, len(recs.Episodes))
	best := make([]float64, len(recs.Episodes))
	for i, e := range recs.Episodes {
		ep[i], best[i] = float64(e.Speedup), float64(e.BestSpeedup)
	}
	p, sc, err := perEpisode("Speedup over the start graph (training latency model)", "speedup (x)", ep)
	if err != nil {
		return err
	}
	p.Add(plotter.NewGrid(), sc)
	p.Legend.Add("episode's best", sc)
	models := perModel(recs)
	if models == nil {
		models = []modelSeries{{name: "best so far", best: xys(best)}}
	}
	for i, m := range models {
		bl, err := plotter.NewLine(m.best)
		if err != nil {
			return err
		}
		bl.Color, bl.Width = red, vg.Points(1.5)
		if len(models) > 1 {
			bl.Color = plotutil.Color(i)
			bl.Dashes = plotutil.Dashes(i / len(plotutil.DefaultColors))
		}
		bl.StepStyle = plotter.PostStep
		p.Add(bl)
		p.Legend.Add(m.name, bl)
	}
	p.Legend.Top, p.Legend.Left = false, false
	p.Y.Tick.Marker = labelTicks{"%.3f"}
	return save(p, 8*vg.Inch, 4*vg.Inch, path)
}

// modelSeries is one model's best speedup so far, by episode number.
type modelSeries struct {
	name string
	best plotter.XYs
}

// perModel splits a multi-model run's best speedups by model, in order of
// first appearance (nil for a one-model run).
func perModel(recs *ppo.Records) []modelSeries {
	idx := map[string]int{}
	var out []modelSeries
	for _, e := range recs.Episodes {
		if e.Model == "" {
			return nil
		}
		i, ok := idx[e.Model]
		if !ok {
			i = len(out)
			idx[e.Model] = i
			out = append(out, modelSeries{name: e.Model + " best so far"})
		}
		if v := float64(e.BestSpeedup); !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[i].best = append(out[i].best, plotter.XY{X: float64(e.Episode), Y: v})
		}
	}
	return out
}

// labelTicks are gonum's default ticks labelled with a fixed format
// (speedups differ in the second or third decimal).
type labelTicks struct{ format string }

// Ticks implements plot.Ticker.
func (l labelTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmt.Sprintf(l.format, ts[i].Value)
		}
	}
	return ts
}

// maxColumns caps the heat map's width: longer runs sum the counts of
// consecutive episodes into one column.
const maxColumns = 200

// ruleGrid holds counts[rule][column].
type ruleGrid struct {
	counts [][]float64
	per    int // episodes per column
}

func (g *ruleGrid) Dims() (c, r int) { return len(g.counts[0]), len(g.counts) }
func (g *ruleGrid) Z(c, r int) float64 {
	return g.counts[r][c]
}
func (g *ruleGrid) X(c int) float64 { return float64(c*g.per) + float64(g.per+1)/2 }
func (g *ruleGrid) Y(r int) float64 { return float64(r) }

// newRuleGrid counts rule applications: one row per rule applied at
// least once (row 0, drawn at the bottom, is the least applied), one
// column per episode or per group of episodes in long runs. It returns
// the grid, the row labels and the largest count.
func newRuleGrid(recs *ppo.Records) (*ruleGrid, []string, float64) {
	names := recs.RuleNames()
	if len(names) == 0 {
		names = []string{"(no rule applied)"}
	}
	n := max(1, len(recs.Episodes))
	per := (n + maxColumns - 1) / maxColumns
	cols := (n + per - 1) / per
	g := &ruleGrid{per: per, counts: make([][]float64, len(names))}
	row := map[string]int{}
	labels := make([]string, len(names))
	for i, name := range names {
		r := len(names) - 1 - i
		row[name], labels[r] = r, name
	}
	for r := range g.counts {
		g.counts[r] = make([]float64, cols)
	}
	maxZ := 1.0
	for i, e := range recs.Episodes {
		for rule, k := range e.Rules {
			c := &g.counts[row[rule]][i/per]
			*c += float64(k)
			maxZ = math.Max(maxZ, *c)
		}
	}
	return g, labels, maxZ
}

// Rules draws the rule-application heat map (see newRuleGrid) with a
// colour key.
func Rules(recs *ppo.Records, path string) error {
	g, labels, maxZ := newRuleGrid(recs)
	p := plot.New()
	p.Title.Text = "Rules applied per episode"
	if g.per > 1 {
		p.Title.Text = fmt.Sprintf("Rules applied per %d episodes", g.per)
	}
	p.X.Label.Text = "episode"
	pal := moreland.SmoothBlueRed().Palette(64)
	hm := plotter.NewHeatMap(g, pal)
	// Cells of rules not applied (count 0) are left white.
	hm.Min, hm.Max, hm.Underflow = 0.5, maxZ, color.White
	p.Add(hm)
	p.NominalY(labels...)
	p.Y.Padding = 0
	p.X.Padding = 0

	// A colour key on the right: a one-column heat map from 0 to max.
	key := plot.New()
	key.Title.Text = "times"
	kg := &keyGrid{max: maxZ}
	kh := plotter.NewHeatMap(kg, pal)
	kh.Min, kh.Max = 0.5, maxZ
	key.Add(kh)
	key.HideX()
	key.Y.Padding = 0

	height := vg.Length(max(3, 1+0.22*float64(len(labels)))) * vg.Inch
	width := 10 * vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	split := dc.Min.X + 0.9*(dc.Max.X-dc.Min.X)
	left, right := dc, dc
	left.Max.X, right.Min.X = split, split
	p.Draw(left)
	key.Draw(right)
	return savePNG(img, path)
}

// save draws p on a w x h image and writes it to path as PNG.
func save(p *plot.Plot, w, h vg.Length, path string) error {
	img := vgimg.New(w, h)
	p.Draw(draw.New(img))
	return savePNG(img, path)
}

// savePNG writes a canvas to path atomically.
func savePNG(img *vgimg.Canvas, path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
		return err
	})
}

// keyGrid is a vertical colour ramp from 0.5 (the least count shown in
// colour) to max.
type keyGrid struct{ max float64 }

const keySteps = 64

func (k *keyGrid) Dims() (c, r int)   { return 1, keySteps }
func (k *keyGrid) Z(c, r int) float64 { return k.Y(r) }
func (k *keyGrid) X(c int) float64    { return 0 }
func (k *keyGrid) Y(r int) float64    { return 0.5 + (k.max-0.5)*float64(r)/(keySteps-1) }
