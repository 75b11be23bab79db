package measure

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

func TestOpWorkAttention(t *testing.T) {
	val := func(shape ...int) *graph.Value {
		v := &graph.Value{Name: "v"}
		v.SetStatic(graph.Float32, shape)
		return v
	}
	tests := []struct {
		name   string
		domain string
		class  string
		work   float64
	}{
		// 2*B*S*Din*3H + 4*B*S*S*H with B 1, S 8, Din 16, H 16.
		{name: "com.microsoft Attention", domain: graph.MicrosoftDomain, class: workFLOPs, work: 2*8*16*48 + 4*8*8*16},
		{name: "an Attention of another domain counts elements", domain: "com.example", class: workBytes, work: 1*8*16 + 16*48 + 1*8*16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &graph.Node{Op: "Attention", Domain: tt.domain, Inputs: []*graph.Value{val(1, 8, 16), val(16, 48)},
				Outputs: []*graph.Value{val(1, 8, 16)}, Attrs: graph.Attrs{"num_heads": graph.IntAttr(2)}}
			class, work := opWork(n)
			if class != tt.class || work != tt.work {
				t.Errorf("opWork = %s %g, want %s %g", class, work, tt.class, tt.work)
			}
		})
	}
}
