package graph

import (
	"strings"
	"testing"
)

// contribNode infers one node of op over ins, with output i present when
// outs[i] is set, and returns it with InferNode's error.
func contribNode(op, domain string, attrs Attrs, outs []bool, ins ...*Value) (*Node, error) {
	n := &Node{Name: "n", Op: op, Domain: domain, Inputs: ins, Attrs: attrs}
	for i, present := range outs {
		var o *Value
		if present {
			o = &Value{Name: op + "_out" + string(rune('0'+i))}
		}
		n.Outputs = append(n.Outputs, o)
	}
	return n, InferNode(n)
}

// TestContribOpsKeepSymbolicDims checks that the fused operators' outputs
// carry the symbolic batch and sequence dimensions of their inputs.
func TestContribOpsKeepSymbolicDims(t *testing.T) {
	zeros := func(shape ...int) *Value {
		v := &Value{Name: "c", Const: NewTensor(Float32, shape...)}
		v.SetStatic(Float32, shape)
		return v
	}
	int32s := func(name string, dims ...string) *Value {
		v := symInput(NewBuilder("ids"), name, dims...)
		v.DType = Int32
		return v
	}
	tests := []struct {
		name   string
		op     string
		domain string
		attrs  Attrs
		ins    func(b *Builder) []*Value
		want   []string
	}{
		{name: "MultiHeadAttention", op: "MultiHeadAttention", domain: MicrosoftDomain, attrs: Attrs{"num_heads": IntAttr(2)},
			ins: func(b *Builder) []*Value {
				return []*Value{symInput(b, "q", "2:batch", "3:seq", "8"), symInput(b, "k", "2:batch", "5:kv", "8"),
					symInput(b, "v", "2:batch", "5:kv", "4"), zeros(20), int32s("m", "2:batch", "5:kv")}
			},
			want: []string{"2(batch)x3(seq)x4"}},
		{name: "GroupQueryAttention", op: "GroupQueryAttention", domain: MicrosoftDomain,
			attrs: Attrs{"num_heads": IntAttr(4), "kv_num_heads": IntAttr(2)},
			ins: func(b *Builder) []*Value {
				return []*Value{symInput(b, "qkv", "2:batch", "3:seq", "64"), nil, nil, nil, nil, int32s("lens", "2:batch"), int32s("total", "1")}
			},
			want: []string{"2(batch)x3(seq)x32", "2(batch)x2x3(seq)x8", "2(batch)x2x3(seq)x8"}},
		{name: "SkipLayerNormalization", op: "SkipLayerNormalization", domain: MicrosoftDomain,
			ins: func(b *Builder) []*Value {
				return []*Value{symInput(b, "x", "2:batch", "3:seq", "8"), symInput(b, "s", "2:batch", "3:seq", "8"), zeros(8), zeros(8)}
			},
			want: []string{"2(batch)x3(seq)x8", "", "", "2(batch)x3(seq)x8"}},
		{name: "EmbedLayerNormalization", op: "EmbedLayerNormalization", domain: MicrosoftDomain,
			ins: func(b *Builder) []*Value {
				return []*Value{int32s("ids", "2:batch", "3:seq"), nil, zeros(10, 8), zeros(6, 8), nil, zeros(8), zeros(8),
					int32s("mask", "2:batch", "3:seq")}
			},
			want: []string{"2(batch)x3(seq)x8", "2(batch)", "2(batch)x3(seq)x8"}},
		{name: "FusedMatMul", op: "FusedMatMul", domain: MicrosoftDomain, attrs: Attrs{"transB": IntAttr(1)},
			ins: func(b *Builder) []*Value {
				return []*Value{symInput(b, "a", "2:batch", "3:seq", "8"), zeros(6, 8)}
			},
			want: []string{"2(batch)x3(seq)x6"}},
		{name: "BiasGelu", op: "BiasGelu", domain: MicrosoftDomain,
			ins: func(b *Builder) []*Value {
				return []*Value{symInput(b, "a", "2:batch", "3:seq", "8"), zeros(8)}
			},
			want: []string{"2(batch)x3(seq)x8"}},
		{name: "SimplifiedLayerNormalization", op: "SimplifiedLayerNormalization",
			ins: func(b *Builder) []*Value {
				return []*Value{symInput(b, "x", "2:batch", "3:seq", "8"), zeros(8)}
			},
			want: []string{"2(batch)x3(seq)x8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outs := make([]bool, len(tt.want))
			for i, want := range tt.want {
				outs[i] = want != ""
			}
			n, err := contribNode(tt.op, tt.domain, tt.attrs, outs, tt.ins(NewBuilder("sym"))...)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tt.want {
				if want == "" {
					continue
				}
				if got := n.Outputs[i].Shape.SymString(); got != want {
					t.Errorf("output %d shape %s, want %s", i, got, want)
				}
			}
		})
	}
}

// TestContribOpsRejectUnsupportedForms checks that inference refuses the
// forms the Go kernels do not implement, naming what is wrong.
func TestContribOpsRejectUnsupportedForms(t *testing.T) {
	f32 := func(shape ...int) *Value {
		v := &Value{Name: "v"}
		v.SetStatic(Float32, shape)
		return v
	}
	i32 := func(shape ...int) *Value {
		v := &Value{Name: "m"}
		v.SetStatic(Int32, shape)
		return v
	}
	one := []bool{true}
	gqa := Attrs{"num_heads": IntAttr(4), "kv_num_heads": IntAttr(2)}
	tests := []struct {
		name   string
		op     string
		domain string
		attrs  Attrs
		outs   []bool
		ins    []*Value
		want   string
	}{
		{name: "FusedMatMul transBatchA", op: "FusedMatMul", domain: MicrosoftDomain, attrs: Attrs{"transBatchA": IntAttr(1)}, outs: one,
			ins: []*Value{f32(2, 3, 4), f32(4, 5)}, want: "transBatchA"},
		{name: "FusedMatMul inner sizes", op: "FusedMatMul", domain: MicrosoftDomain, outs: one,
			ins: []*Value{f32(3, 4), f32(5, 4)}, want: "inner dimensions"},
		{name: "BiasGelu bias size", op: "BiasGelu", domain: MicrosoftDomain, outs: one, ins: []*Value{f32(3, 4), f32(3)}, want: "bias"},
		{name: "SkipLayerNormalization mean output", op: "SkipLayerNormalization", domain: MicrosoftDomain, outs: []bool{true, true},
			ins: []*Value{f32(2, 3, 4), f32(2, 3, 4), f32(4)}, want: "mean and inv_std_var"},
		{name: "SkipLayerNormalization skip batch", op: "SkipLayerNormalization", domain: MicrosoftDomain, outs: one,
			ins: []*Value{f32(2, 3, 4), f32(3, 3, 4), f32(4)}, want: "skip"},
		{name: "Attention 4-D mask", op: "Attention", domain: MicrosoftDomain, attrs: Attrs{"num_heads": IntAttr(2)}, outs: one,
			ins: []*Value{f32(2, 3, 4), f32(4, 12), f32(12), i32(2, 1, 3, 3)}, want: "mask_index"},
		{name: "MultiHeadAttention past", op: "MultiHeadAttention", domain: MicrosoftDomain, attrs: Attrs{"num_heads": IntAttr(2)}, outs: one,
			ins: []*Value{f32(2, 3, 4), f32(2, 3, 4), f32(2, 3, 4), nil, nil, nil, f32(2, 2, 1, 2), f32(2, 2, 1, 2)}, want: "past"},
		{name: "MultiHeadAttention [2*batch] mask", op: "MultiHeadAttention", domain: MicrosoftDomain, attrs: Attrs{"num_heads": IntAttr(2)}, outs: one,
			ins: []*Value{f32(2, 3, 4), f32(2, 3, 4), f32(2, 3, 4), nil, i32(4)}, want: "key_padding_mask"},
		{name: "GroupQueryAttention head size", op: "GroupQueryAttention", domain: MicrosoftDomain, attrs: gqa, outs: one,
			ins: []*Value{f32(1, 3, 16), f32(1, 3, 8), f32(1, 3, 8), nil, nil, i32(1), i32(1)}, want: "multiple of 8"},
		{name: "GroupQueryAttention past", op: "GroupQueryAttention", domain: MicrosoftDomain, attrs: gqa, outs: one,
			ins: []*Value{f32(1, 3, 32), f32(1, 3, 16), f32(1, 3, 16), f32(1, 2, 1, 8), f32(1, 2, 1, 8), i32(1), i32(1)}, want: "past"},
		{name: "GroupQueryAttention seqlens_k per batch", op: "GroupQueryAttention", domain: MicrosoftDomain, attrs: gqa, outs: one,
			ins: []*Value{f32(2, 3, 32), f32(2, 3, 16), f32(2, 3, 16), nil, nil, i32(1), i32(1)}, want: "seqlens_k"},
		{name: "GroupQueryAttention rotary of heads of 8", op: "GroupQueryAttention", domain: MicrosoftDomain,
			attrs: Attrs{"num_heads": IntAttr(4), "kv_num_heads": IntAttr(2), "do_rotary": IntAttr(1)}, outs: one,
			ins: []*Value{f32(1, 3, 32), f32(1, 3, 16), f32(1, 3, 16), nil, nil, i32(1), i32(1), f32(8, 4), f32(8, 4)}, want: "multiple of 16"},
		{name: "GroupQueryAttention rotary caches too short", op: "GroupQueryAttention", domain: MicrosoftDomain,
			attrs: Attrs{"num_heads": IntAttr(2), "kv_num_heads": IntAttr(1), "do_rotary": IntAttr(1)}, outs: one,
			ins: []*Value{f32(1, 5, 64), f32(1, 5, 32), f32(1, 5, 32), nil, nil, i32(1), i32(1), f32(4, 16), f32(4, 16)}, want: "positions"},
		{name: "GroupQueryAttention heads", op: "GroupQueryAttention", domain: MicrosoftDomain,
			attrs: Attrs{"num_heads": IntAttr(3), "kv_num_heads": IntAttr(2)}, outs: one,
			ins: []*Value{f32(1, 3, 24), f32(1, 3, 16), f32(1, 3, 16), nil, nil, i32(1), i32(1)}, want: "multiple of kv_num_heads"},
		{name: "EmbedLayerNormalization segments without table", op: "EmbedLayerNormalization", domain: MicrosoftDomain, outs: one,
			ins: []*Value{i32(2, 3), i32(2, 3), f32(10, 4), f32(3, 4), nil, f32(4), f32(4)}, want: "segment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := contribNode(tt.op, tt.domain, tt.attrs, tt.outs, tt.ins...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
