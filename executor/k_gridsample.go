package executor

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// GridSample of 4-D inputs: each output point samples every channel of X at
// the grid's normalised (x, y), by bilinear, nearest or bicubic
// interpolation, with zeros, border or reflection padding.

func init() {
	registerKernel(newGridSampleKernel, "GridSample")
}

// gridSampleKernel is GridSample of X [n, c, h, w] at grid [n, ho, wo, 2].
type gridSampleKernel struct {
	n, c, h, w, ho, wo int
	mode, pad          string
	align              bool
}

func newGridSampleKernel(ni *nodeInfo) (kernel, error) {
	x, g := ni.in(0), ni.in(1)
	if !isFloatDT(x.dt) || g.dt != x.dt {
		return nil, errDType("GridSample", x.dt)
	}
	n := ni.node
	return &gridSampleKernel{
		n: x.shape[0], c: x.shape[1], h: x.shape[2], w: x.shape[3], ho: g.shape[1], wo: g.shape[2],
		mode: graph.GridSampleMode(n), pad: n.AttrString("padding_mode"), align: n.AttrInt("align_corners") != 0,
	}, nil
}

func (k *gridSampleKernel) run(rc *runCtx, ins, outs []any) error {
	floatCAB(rc, k, outs[0], ins[0], ins[1], gridSampleRun[float32], gridSampleRun[float64])
	return nil
}

func gridSampleRun[T floatT](rc *runCtx, k *gridSampleKernel, y, x, grid []T) {
	plane, out := k.h*k.w, k.ho*k.wo
	parallelFor(rc.threads, k.n*out, k.c*16, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			b := p / out
			gx := k.unnormalize(float64(grid[2*p]), k.w)
			gy := k.unnormalize(float64(grid[2*p+1]), k.h)
			for c := range k.c {
				src := x[(b*k.c+c)*plane : (b*k.c+c+1)*plane]
				y[(b*k.c+c)*out+p%out] = T(gridSampleAt(k, src, gx, gy))
			}
		}
	})
}

// unnormalize maps a grid coordinate in [-1, 1] to a pixel coordinate on
// an axis of size pixels.
func (k *gridSampleKernel) unnormalize(g float64, size int) float64 {
	if k.align {
		return (g + 1) / 2 * float64(size-1)
	}
	return ((g+1)*float64(size) - 1) / 2
}

// padCoord moves a pixel coordinate inside the axis for border and reflection
// padding; zeros padding leaves it.
func (k *gridSampleKernel) padCoord(v float64, size int) float64 {
	switch k.pad {
	case "border":
		return min(max(v, 0), float64(size-1))
	case "reflection":
		if k.align {
			v = reflectCoord(v, 0, float64(size-1))
		} else {
			v = reflectCoord(v, -0.5, float64(size)-0.5)
		}
		return min(max(v, 0), float64(size-1))
	}
	return v
}

// reflectCoord reflects v at lo and hi until it lies between them.
func reflectCoord(v, lo, hi float64) float64 {
	span := hi - lo
	if span <= 0 {
		return 0
	}
	d := math.Abs(v - lo)
	extra := math.Mod(d, span)
	if int64(math.Floor(d/span))%2 == 0 {
		return lo + extra
	}
	return hi - extra
}

// pixelAt returns src at integer (xi, yi), 0 outside the plane.
func pixelAt[T floatT](k *gridSampleKernel, src []T, xi, yi int) float64 {
	if xi < 0 || yi < 0 || xi >= k.w || yi >= k.h {
		return 0
	}
	return float64(src[yi*k.w+xi])
}

// gridSampleAt interpolates one channel plane at pixel coordinates
// (fx, fy).
func gridSampleAt[T floatT](k *gridSampleKernel, src []T, fx, fy float64) float64 {
	switch k.mode {
	case "nearest":
		fx, fy = k.padCoord(fx, k.w), k.padCoord(fy, k.h)
		return pixelAt(k, src, int(math.RoundToEven(fx)), int(math.RoundToEven(fy)))
	case "bicubic":
		x0, y0 := math.Floor(fx), math.Floor(fy)
		wx, wy := cubicCoeffs(fx-x0, -0.75), cubicCoeffs(fy-y0, -0.75)
		v := 0.0
		for j := range 4 {
			yj := int(k.padCoord(y0-1+float64(j), k.h))
			row := 0.0
			for i := range 4 {
				row += wx[i] * pixelAt(k, src, int(k.padCoord(x0-1+float64(i), k.w)), yj)
			}
			v += wy[j] * row
		}
		return v
	}
	fx, fy = k.padCoord(fx, k.w), k.padCoord(fy, k.h)
	x0, y0 := math.Floor(fx), math.Floor(fy)
	tx, ty := fx-x0, fy-y0
	xi, yi := int(x0), int(y0)
	return (1-ty)*((1-tx)*pixelAt(k, src, xi, yi)+tx*pixelAt(k, src, xi+1, yi)) +
		ty*((1-tx)*pixelAt(k, src, xi, yi+1)+tx*pixelAt(k, src, xi+1, yi+1))
}
