package onnx

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// TestLeanValueInfo keeps the value_info of an op outside the table (here
// and inside an If branch) and drops that of ops xrl infers.
func TestLeanValueInfo(t *testing.T) {
	node := func(op string, out string) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String(op), Input: []string{"x"}, Output: []string{out}}
	}
	vi := func(names ...string) []*onnxpb.ValueInfoProto {
		var out []*onnxpb.ValueInfoProto
		for _, n := range names {
			out = append(out, &onnxpb.ValueInfoProto{Name: proto.String(n)})
		}
		return out
	}
	branch := &onnxpb.GraphProto{Node: []*onnxpb.NodeProto{node("Relu", "br"), node("NotAnOp", "bo")}, ValueInfo: vi("br", "bo")}
	iff := node("If", "y")
	iff.Attribute = []*onnxpb.AttributeProto{{Name: proto.String("then_branch"), G: branch}}
	gp := &onnxpb.GraphProto{
		Node:      []*onnxpb.NodeProto{node("Relu", "r"), node("NotAnOp", "o"), iff},
		ValueInfo: vi("r", "o", "y"),
	}
	leanValueInfo(gp)
	names := func(vs []*onnxpb.ValueInfoProto) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.GetName())
		}
		return out
	}
	for _, tc := range []struct {
		name string
		got  []string
		want string
	}{
		{"graph", names(gp.ValueInfo), "[o y]"},
		{"branch", names(branch.ValueInfo), "[bo]"},
	} {
		if got := fmtList(tc.got); got != tc.want {
			t.Errorf("%s: value_info %s, want %s", tc.name, got, tc.want)
		}
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
