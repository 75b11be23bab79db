package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// convWindow holds the resolved sliding-window geometry of Conv and the
// pools for each spatial axis.
type convWindow struct {
	in, out, kernel, stride, dilation []int
	padBegin, padEnd                  []int
}

// resolveWindow reads kernel_shape (default: kernel), strides, dilations,
// pads and auto_pad for spatial input shape in and output shape out.
func resolveWindow(n *graph.Node, in, out, kernel []int) (*convWindow, error) {
	sp := len(in)
	w := &convWindow{in: in, out: out, kernel: make([]int, sp), stride: make([]int, sp),
		dilation: make([]int, sp), padBegin: make([]int, sp), padEnd: make([]int, sp)}
	ks := n.AttrInts("kernel_shape")
	if ks == nil {
		if kernel == nil {
			return nil, fmt.Errorf("attribute kernel_shape is required")
		}
		for i := range w.kernel {
			w.kernel[i] = kernel[i]
		}
	} else {
		if len(ks) != sp {
			return nil, fmt.Errorf("kernel_shape %v has %d values, want %d", ks, len(ks), sp)
		}
		for i := range ks {
			w.kernel[i] = int(ks[i])
		}
	}
	get := func(name string, def int, want int) ([]int64, error) {
		v := n.AttrInts(name)
		if v == nil {
			return nil, nil
		}
		if len(v) != want {
			return nil, fmt.Errorf("attribute %s %v has %d values, want %d", name, v, len(v), want)
		}
		return v, nil
	}
	strides, err := get("strides", 1, sp)
	if err != nil {
		return nil, err
	}
	dil, err := get("dilations", 1, sp)
	if err != nil {
		return nil, err
	}
	pads, err := get("pads", 0, 2*sp)
	if err != nil {
		return nil, err
	}
	autoPad := n.AttrString("auto_pad")
	for i := 0; i < sp; i++ {
		w.stride[i], w.dilation[i] = 1, 1
		if strides != nil {
			w.stride[i] = int(strides[i])
		}
		if dil != nil {
			w.dilation[i] = int(dil[i])
		}
		if w.stride[i] < 1 || w.dilation[i] < 1 || w.kernel[i] < 1 {
			return nil, fmt.Errorf("kernel, strides and dilations must be positive")
		}
		dk := (w.kernel[i]-1)*w.dilation[i] + 1
		switch autoPad {
		case "SAME_UPPER", "SAME_LOWER":
			total := max(0, (out[i]-1)*w.stride[i]+dk-in[i])
			small := total / 2
			if autoPad == "SAME_UPPER" {
				w.padBegin[i], w.padEnd[i] = small, total-small
			} else {
				w.padBegin[i], w.padEnd[i] = total-small, small
			}
		case "VALID":
		case "", "NOTSET":
			if pads != nil {
				w.padBegin[i], w.padEnd[i] = int(pads[i]), int(pads[i+sp])
			}
		default:
			return nil, fmt.Errorf("auto_pad %q is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", autoPad)
		}
	}
	return w, nil
}

// kernelSize returns the number of taps of the window.
func (w *convWindow) kernelSize() int { return graph.NumElements(w.kernel) }

// tapTable returns, for spatial axis d, the input index read by kernel tap
// t at output position o (table[t*out+o]), or -1 in the padding.
func (w *convWindow) tapTable(d int) []int {
	K, O := w.kernel[d], w.out[d]
	tbl := make([]int, K*O)
	for t := 0; t < K; t++ {
		for o := 0; o < O; o++ {
			i := o*w.stride[d] - w.padBegin[d] + t*w.dilation[d]
			if i < 0 || i >= w.in[d] {
				i = -1
			}
			tbl[t*O+o] = i
		}
	}
	return tbl
}
