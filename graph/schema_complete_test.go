package graph

import (
	"fmt"
	"testing"
)

// scalarFree are the Elementwise ops whose per-element function is neither
// a BinaryOp nor a float64 function of one input, with the reason; their
// kernels and inference state it.
var scalarFree = map[string]string{
	"Where":    "selects between two inputs by a third",
	"Clip":     "takes optional bounds as inputs",
	"Mod":      "follows the divisor's or the dividend's sign by its fmod attribute",
	"Mean":     "divides the sum by the number of inputs",
	"BitShift": "shifts left or right by its direction attribute",
}

// TestRowsComplete checks that every row of the op-schema table states
// the per-op facts that other packages read instead of keeping their own
// lists: its work (or that it is free), its elementwise function, and a
// version history consistent with its inputs, outputs and attributes.
func TestRowsComplete(t *testing.T) {
	tests := []struct {
		name  string
		check func(s *OpSchema) error
	}{
		{"a Work function, or Movement (free)", func(s *OpSchema) error {
			if (s.Work == nil) != s.Movement {
				return fmt.Errorf("Work set %v, Movement %v", s.Work != nil, s.Movement)
			}
			return nil
		}},
		{"an Elementwise op has its function", func(s *OpSchema) error {
			has := s.Binary != BinNone || s.Unary != nil
			if _, free := scalarFree[s.Op]; s.Elementwise && !has && !free {
				return fmt.Errorf("no Binary or Unary function")
			}
			if has && !s.Elementwise {
				return fmt.Errorf("has a function but is not Elementwise")
			}
			if s.Binary != BinNone && s.Unary != nil {
				return fmt.Errorf("has both a Binary and a Unary function")
			}
			return nil
		}},
		{"function arity matches the inputs", func(s *OpSchema) error {
			switch {
			case s.Unary != nil && len(s.Inputs) != 1:
				return fmt.Errorf("Unary function with %d inputs", len(s.Inputs))
			case s.Binary != BinNone && len(s.Inputs) != 2 && s.MaxInputs() != -1:
				return fmt.Errorf("Binary function with %d inputs", len(s.Inputs))
			}
			return nil
		}},
		{"exact data movement only moves data", func(s *OpSchema) error {
			if s.Exact == ExactMove && !s.Movement {
				return fmt.Errorf("ExactMove but not Movement")
			}
			return nil
		}},
		{"version history names the row's attributes, inputs and outputs", func(s *OpSchema) error {
			h := s.History
			for name := range h.AttrSince {
				if s.Attr(name) == nil {
					return fmt.Errorf("AttrSince names %s, not an attribute", name)
				}
			}
			for name := range h.Obsolete {
				if s.Attr(name) != nil {
					return fmt.Errorf("obsolete attribute %s is still an attribute", name)
				}
			}
			for i := range h.InputSince {
				if i >= len(s.Inputs) || !s.Inputs[i].Optional {
					return fmt.Errorf("InputSince names input %d, not an optional input", i)
				}
			}
			for i := range h.RequiredBefore {
				if i >= len(s.Inputs) || !s.Inputs[i].Optional {
					return fmt.Errorf("RequiredBefore names input %d, not an optional input", i)
				}
			}
			for i := range h.OutputSince {
				if i >= len(s.Outputs) || !s.Outputs[i].Optional {
					return fmt.Errorf("OutputSince names output %d, not an optional output", i)
				}
			}
			return nil
		}},
		{"history before opset 9 belongs to ops converted from then", func(s *OpSchema) error {
			h := s.History
			old := h.ConsumedBefore != 0 || h.TestModeBefore != 0 || h.LegacyBroadcast || h.SameShapeBefore != 0 ||
				len(h.Obsolete) > 0 || len(h.LegacyAttrInputs) > 0
			if old && h.First == 0 {
				return fmt.Errorf("history before opset 9 without First")
			}
			if h.First < 0 || h.First > 8 {
				return fmt.Errorf("First %d outside 1..8", h.First)
			}
			if h.LegacyBroadcast && s.Binary == BinNone {
				return fmt.Errorf("LegacyBroadcast on an op without a Binary function")
			}
			if h.SameShapeBefore != 0 && s.MaxInputs() != -1 {
				return fmt.Errorf("SameShapeBefore on an op that is not variadic")
			}
			if s.Domain != "" && (h.First != 0 || len(h.AttrSince) > 0) {
				return fmt.Errorf("default-domain history on a %s op", s.Domain)
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range Schemas() {
				if err := tc.check(s); err != nil {
					t.Errorf("%s: %v", s.Op, err)
				}
			}
		})
	}
	for op := range scalarFree {
		if s := Lookup("", op); s == nil || !s.Elementwise || s.Binary != BinNone || s.Unary != nil {
			t.Errorf("scalarFree lists %s, which is not an Elementwise op without a function", op)
		}
	}
}
