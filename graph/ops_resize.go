package graph

import (
	"cmp"
	"fmt"
	"math"
)

// Resize, GridSample and RoiAlign.

// resizeOps are the rows of this file.
var resizeOps = []OpSchema{
	{
		Op: "Resize",
		History: History{AttrSince: map[string]int64{"antialias": 18, "axes": 18, "cubic_coeff_a": 11,
			"exclude_outside": 11, "extrapolation_value": 11, "keep_aspect_ratio_policy": 18}},
		Doc: "Y = X resampled (nearest, linear or cubic) to sizes, or to floor(dims*scales); in opset 10 the " +
			"inputs were only (X, scales), which the codec maps by position to inputs 0 and 2.",
		Inputs: []InputSpec{{Name: "X"}, {Name: "roi", Optional: true, Param: true}, {Name: "scales", Optional: true, Param: true},
			{Name: "sizes", Optional: true, Param: true}},
		Outputs: outY,
		Attrs: []AttrSpec{
			{Name: "antialias", Kind: AttrInt, Default: defInt(0)},
			{Name: "axes", Kind: AttrInts},
			{Name: "coordinate_transformation_mode", Kind: AttrString, Default: defString("half_pixel")},
			{Name: "cubic_coeff_a", Kind: AttrFloat, Default: defFloat(-0.75)},
			{Name: "exclude_outside", Kind: AttrInt, Default: defInt(0)},
			{Name: "extrapolation_value", Kind: AttrFloat, Default: defFloat(0)},
			{Name: "keep_aspect_ratio_policy", Kind: AttrString, Default: defString("stretch")},
			{Name: "mode", Kind: AttrString, Default: defString("nearest")},
			{Name: "nearest_mode", Kind: AttrString, Default: defString("round_prefer_floor")},
		},
		MinOpset: 10,
		Work:     workPerOutput,
		Infer:    inferResize,
	},
	{Op: "GridSample", MinOpset: 16, Work: workPerOutput, Infer: inferGridSample, Inputs: ins("X", "grid"), Outputs: outY,
		Attrs: []AttrSpec{intAttr("align_corners", 0), stringAttr("mode", "bilinear"), stringAttr("padding_mode", "zeros")},
		Doc: "Y[n, c, h, w] = X[n, c] sampled (bilinear, nearest or bicubic; opset 20's linear and cubic) at grid[n, h, w] = (x, y) in [-1, 1], " +
			"outside points padded by zeros, the border or reflection; 4-D X only."},
	{Op: "RoiAlign", MinOpset: 16, Work: workPerOutput, Infer: inferRoiAlign, Inputs: ins("X", "rois", "batch_indices"), Outputs: outY,
		Attrs: []AttrSpec{stringAttr("coordinate_transformation_mode", "half_pixel"), stringAttr("mode", "avg"),
			intAttr("output_height", 1), intAttr("output_width", 1), intAttr("sampling_ratio", 0), floatAttr("spatial_scale", 1)},
		Doc: "Y[r, c] = the output_height x output_width bins of region rois[r] = (x1, y1, x2, y2) * spatial_scale of X[batch_indices[r], c], " +
			"each the average (or max) of bilinear samples on a sampling_ratio grid (adaptive when 0)."},
}

func inferResize(n *Node) error {
	x := n.Inputs[0]
	r := len(x.Shape)
	switch m := n.AttrString("mode"); m {
	case "nearest", "linear", "cubic":
	default:
		return fmt.Errorf("mode %q is not one of nearest, linear, cubic", m)
	}
	axes := n.AttrInts("axes")
	if axes == nil {
		axes = make([]int64, r)
		for i := range axes {
			axes[i] = int64(i)
		}
	}
	ax := make([]int, len(axes))
	for i, a := range axes {
		v, err := NormAxis(a, r)
		if err != nil {
			return fmt.Errorf("attribute axes: %w", err)
		}
		ax[i] = v
	}
	out := x.Shape.Clone()
	hasScales, hasSizes := present(n, 2), present(n, 3)
	switch {
	case hasScales && hasSizes:
		return fmt.Errorf("only one of scales and sizes may be given")
	case hasSizes:
		sizes, _, err := constInts(n, 3)
		if err != nil {
			return err
		}
		if len(sizes) != len(ax) {
			return fmt.Errorf("sizes %v has %d entries, want %d", sizes, len(sizes), len(ax))
		}
		policy := n.AttrString("keep_aspect_ratio_policy")
		switch policy {
		case "stretch":
			for i, a := range ax {
				out[a] = Dim{Value: sizes[i]}
			}
		case "not_larger", "not_smaller":
			scale := 0.0
			for i, a := range ax {
				if x.Shape[a].Value == 0 {
					return fmt.Errorf("keep_aspect_ratio_policy %q needs non-empty input axes, axis %d is 0", policy, a)
				}
				s := float64(sizes[i]) / float64(x.Shape[a].Value)
				if i == 0 || (policy == "not_larger" && s < scale) || (policy == "not_smaller" && s > scale) {
					scale = s
				}
			}
			for _, a := range ax {
				out[a] = Dim{Value: int64(math.Floor(scale*float64(x.Shape[a].Value) + 0.5))}
			}
		default:
			return fmt.Errorf("keep_aspect_ratio_policy %q is not one of stretch, not_larger, not_smaller", policy)
		}
	case hasScales:
		scales, _, err := constFloats(n, 2)
		if err != nil {
			return err
		}
		if len(scales) != len(ax) {
			return fmt.Errorf("scales %v has %d entries, want %d", scales, len(scales), len(ax))
		}
		for i, a := range ax {
			if scales[i] <= 0 {
				return fmt.Errorf("scales %v must be positive", scales)
			}
			// ONNX Runtime computes the product in float32.
			v := float32(scales[i]) * float32(x.Shape[a].Value)
			out[a] = Dim{Value: int64(math.Floor(float64(v)))}
		}
	default:
		return fmt.Errorf("one of scales (input 2) and sizes (input 3) must be given")
	}
	for _, d := range out {
		if d.Value < 0 {
			return fmt.Errorf("negative output size in %v", out)
		}
	}
	setOut(n, 0, x.DType, out)
	return nil
}

// gridSampleModes maps GridSample's interpolation modes to the names of
// opset 16 (opset 20 renamed bilinear and bicubic).
var gridSampleModes = map[string]string{
	"bilinear": "bilinear", "linear": "bilinear", "nearest": "nearest", "bicubic": "bicubic", "cubic": "bicubic",
}

// GridSampleMode returns the opset-16 name of GridSample's mode attribute,
// or "" when it is none of them.
func GridSampleMode(n *Node) string { return gridSampleModes[n.AttrString("mode")] }

func inferGridSample(n *Node) error {
	x, g := n.Inputs[0], n.Inputs[1]
	if err := cmp.Or(checkType(n, 0, isFloatType, "a floating-point type"), checkSameType(n, 0, 1)); err != nil {
		return err
	}
	if GridSampleMode(n) == "" {
		return fmt.Errorf("attribute mode=%q is not bilinear, nearest or bicubic", n.AttrString("mode"))
	}
	if p := n.AttrString("padding_mode"); p != "zeros" && p != "border" && p != "reflection" {
		return fmt.Errorf("attribute padding_mode=%q is not zeros, border or reflection", p)
	}
	if len(x.Shape) != 4 || len(g.Shape) != 4 || g.Shape[3].Value != 2 || g.Shape[0] != x.Shape[0] {
		return fmt.Errorf("X %v and grid %v are not [N, C, H, W] and [N, H_out, W_out, 2]", x.Shape, g.Shape)
	}
	setOut(n, 0, x.DType, Shape{x.Shape[0], x.Shape[1], g.Shape[1], g.Shape[2]})
	return nil
}

func inferRoiAlign(n *Node) error {
	x, rois, idx := n.Inputs[0], n.Inputs[1], n.Inputs[2]
	err := cmp.Or(checkType(n, 0, isFloatType, "a floating-point type"), checkSameType(n, 0, 1),
		checkType(n, 2, isIndexType, "int32 or int64"))
	if err != nil {
		return err
	}
	if m := n.AttrString("mode"); m != "avg" && m != "max" {
		return fmt.Errorf("attribute mode=%q is not avg or max", m)
	}
	if c := n.AttrString("coordinate_transformation_mode"); c != "half_pixel" && c != "output_half_pixel" {
		return fmt.Errorf("attribute coordinate_transformation_mode=%q is not half_pixel or output_half_pixel", c)
	}
	oh, ow := n.AttrInt("output_height"), n.AttrInt("output_width")
	if oh < 1 || ow < 1 || n.AttrInt("sampling_ratio") < 0 {
		return fmt.Errorf("output %dx%d and sampling_ratio %d must be positive (sampling_ratio may be 0)", oh, ow, n.AttrInt("sampling_ratio"))
	}
	if len(x.Shape) != 4 || len(rois.Shape) != 2 || rois.Shape[1].Value != 4 || len(idx.Shape) != 1 || idx.Shape[0] != rois.Shape[0] {
		return fmt.Errorf("X %v, rois %v and batch_indices %v are not [N, C, H, W], [R, 4] and [R]", x.Shape, rois.Shape, idx.Shape)
	}
	setOut(n, 0, x.DType, Shape{rois.Shape[0], x.Shape[1], {Value: oh}, {Value: ow}})
	return nil
}
