package rules

import (
	"sync"

	"github.com/xrl-dev/xrl/graph"
)

// paramSpec describes an input that rules write in brackets like an
// attribute (Split[split=[2, 3]], Reshape[shape=s], Pad[pads=p]): an input
// that older opsets had as an attribute, or one the executor needs as a
// constant. Matching reads the constant's values; building a target
// creates a new constant.
type paramSpec struct {
	Input int
	Type  Kind // KInts (int64 1-D), KFloat (scalar) or KFloats (float32 1-D)
	// DType is the element type of the constant; graph.FromInputDType
	// means "input 0's dtype".
	DType graph.DType
	// Optional marks an input that may be absent (Unset).
	Optional bool
}

// paramSpecs returns op's bracketed constant inputs by input name.
func paramSpecs(s *graph.OpSchema) map[string]paramSpec {
	paramMu.Lock()
	defer paramMu.Unlock()
	if m, ok := paramCache[s]; ok {
		return m
	}
	m := map[string]paramSpec{}
	add := func(i int, dt graph.DType) {
		if i >= len(s.Inputs) {
			return
		}
		k := KInts
		switch {
		case dt == graph.FromInputDType:
			k = KFloat
		case dt == graph.Float32 && s.Op == "Resize":
			k = KFloats
		case dt == graph.Float32:
			k = KFloat
		}
		m[s.Inputs[i].Name] = paramSpec{Input: i, Type: k, DType: dt, Optional: s.Inputs[i].Optional}
	}
	for _, ai := range s.AttrInputs {
		add(ai.Input, ai.DType)
	}
	if s.Domain == "" {
		for _, i := range graph.ParamInputs(s.Op) {
			if i >= len(s.Inputs) {
				continue
			}
			if _, done := m[s.Inputs[i].Name]; done {
				continue
			}
			dt := graph.Int64
			if s.Op == "Resize" && (s.Inputs[i].Name == "roi" || s.Inputs[i].Name == "scales") {
				dt = graph.Float32
			}
			add(i, dt)
		}
	}
	paramCache[s] = m
	return m
}

var (
	paramMu    sync.Mutex
	paramCache = map[*graph.OpSchema]map[string]paramSpec{}
)
