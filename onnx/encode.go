package onnx

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// Defaults for models built from scratch (Model.IRVersion == 0).
const (
	defaultIRVersion = 8
	defaultOpset     = 17
)

// maxProtoSize is the largest serialized ModelProto protobuf allows.
const maxProtoSize = 1<<31 - 1

// Encode serializes m as an ONNX ModelProto with all tensor data inline.
// It fails for models over protobuf's 2 GB limit; WriteFile moves large
// tensors to an external data file instead.
func Encode(m *graph.Model) ([]byte, error) {
	return EncodeWith(m, EncodeOptions{})
}

// EncodeWith is Encode with options (ExternalThreshold does not apply:
// all data is inline).
func EncodeWith(m *graph.Model, opts EncodeOptions) ([]byte, error) {
	mp, _, err := buildModel(m, nil)
	if err != nil {
		return nil, err
	}
	if opts.LeanValueInfo {
		leanValueInfo(mp.Graph)
	}
	if size := proto.Size(mp); size > maxProtoSize {
		return nil, fmt.Errorf("model is %d bytes, over protobuf's 2 GB limit; use WriteFile, which stores large tensors in an external data file", size)
	}
	return marshal(mp)
}

// irVersionFor returns the lowest IR version that allows default-domain
// opset o.
func irVersionFor(o int64) int64 {
	switch {
	case o >= 21:
		return 10
	case o >= 19:
		return 9
	case o >= 15:
		return 8
	case o >= 12:
		return 7
	case o >= 11:
		return 6
	case o >= 10:
		return 5
	case o >= 9:
		return 4
	}
	return 3
}

// externalTensor is an initializer whose data WriteFile moves to the
// external data file.
type externalTensor struct {
	tp   *onnxpb.TensorProto
	data []byte
}

// externalPolicy decides which initializers go to an external file; nil
// keeps everything inline.
type externalPolicy func(raw []byte) bool

// buildModel converts m to a ModelProto. Initializers that ext selects get
// no inline data; they are returned for the caller to place.
func buildModel(m *graph.Model, ext externalPolicy) (*onnxpb.ModelProto, []externalTensor, error) {
	if m == nil || m.Graph == nil {
		return nil, nil, errors.New("model has no graph")
	}
	mp := &onnxpb.ModelProto{IrVersion: proto.Int64(m.IRVersion)}
	mp.ProducerName = optString(m.ProducerName)
	mp.ProducerVersion = optString(m.ProducerVersion)
	mp.Domain = optString(m.Domain)
	if m.ModelVersion != 0 {
		mp.ModelVersion = proto.Int64(m.ModelVersion)
	}
	mp.DocString = optString(m.Doc)
	for _, kv := range m.Metadata {
		mp.MetadataProps = append(mp.MetadataProps, &onnxpb.StringStringEntryProto{Key: proto.String(kv.Key), Value: proto.String(kv.Value)})
	}
	opsets := append([]graph.OpsetID(nil), m.Opsets...)
	opset := m.Opset("")
	if opset == 0 && (m.IRVersion == 0 || usesDefaultDomain(m.Graph)) {
		opset = defaultOpset
		opsets = append([]graph.OpsetID{{Domain: "", Version: opset}}, opsets...)
	}
	if m.IRVersion == 0 {
		mp.IrVersion = proto.Int64(max(defaultIRVersion, irVersionFor(opset)))
	}
	target, err := targetOpset(m.Graph, opset)
	if err != nil {
		return nil, nil, err
	}
	if target != opset {
		for i, o := range opsets {
			if o.Domain == "" || o.Domain == "ai.onnx" {
				opsets[i].Version = target
				break
			}
		}
		if mp.GetIrVersion() < irVersionFor(target) {
			mp.IrVersion = proto.Int64(irVersionFor(target))
		}
	}
	opsets = importSchemaDomains(m.Graph, opsets)
	for _, o := range opsets {
		mp.OpsetImport = append(mp.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String(o.Domain), Version: proto.Int64(o.Version)})
	}
	e := &graphEncoder{g: m.Graph, opset: target, ext: ext}
	mp.Graph, err = e.encode()
	if err != nil {
		return nil, nil, err
	}
	if mp.GetIrVersion() < initializersApartSince && initializersApart(mp.Graph) {
		mp.IrVersion = proto.Int64(initializersApartSince)
	}
	if len(m.Extra) > 0 {
		extra := new(onnxpb.ModelProto)
		if err := proto.Unmarshal(m.Extra, extra); err != nil {
			return nil, nil, fmt.Errorf("model Extra is corrupt: %v", err)
		}
		proto.Merge(mp, extra)
	}
	return mp, e.external, nil
}

// initializersApartSince is the IR version from which initializers need
// not be listed among the graph inputs.
const initializersApartSince = 4

// initializersApart reports whether g has an initializer that is not a
// graph input (constants a rewrite added to a model of IR version 3, say).
func initializersApart(g *onnxpb.GraphProto) bool {
	inputs := map[string]bool{}
	for _, vi := range g.Input {
		inputs[vi.GetName()] = true
	}
	for _, tp := range g.Initializer {
		if !inputs[tp.GetName()] {
			return true
		}
	}
	return false
}

// usesDefaultDomain reports whether g has a node of the default domain.
func usesDefaultDomain(g *graph.Graph) bool {
	for _, n := range g.Nodes {
		if n.Domain == "" || n.Domain == "ai.onnx" {
			return true
		}
	}
	return false
}

// importSchemaDomains adds version 1 of each non-default domain whose
// operators g's table nodes use (a rewrite may have introduced ONNX
// Runtime's com.microsoft operators) and opsets do not import.
func importSchemaDomains(g *graph.Graph, opsets []graph.OpsetID) []graph.OpsetID {
	have := map[string]bool{}
	for _, o := range opsets {
		have[o.Domain] = true
	}
	for _, n := range g.Nodes {
		if d := n.Domain; d != "" && d != "ai.onnx" && !have[d] && !n.IsOpaque() && n.Schema() != nil {
			have[d] = true
			opsets = append(opsets, graph.OpsetID{Domain: d, Version: 1})
		}
	}
	return opsets
}

// targetOpset returns the default-domain opset to write g at: opset, or
// the lowest higher one every IR node can be written in. Raising is
// refused when an opaque default-domain node would be carried along.
// Models below opset 9 without such nodes are raised to at least 9, the
// form their IR nodes were imported in.
func targetOpset(g *graph.Graph, opset int64) (int64, error) {
	target := opset
	var why *raiseError
	if opset >= minLegacyOpset && opset < minIROpset && raisable(g) {
		target = minIROpset
	}
	// A node may need several raises (one requirement per attribute or
	// input); iterate until every node can be written at the target.
	for {
		next := target
		for _, n := range g.Nodes {
			if n.IsOpaque() {
				continue
			}
			_, err := irNodeProto(n, target, checkNames{})
			var re *raiseError
			if errors.As(err, &re) && re.Opset > next {
				next, why = re.Opset, re
			}
		}
		if next == target {
			break
		}
		target = next
	}
	if target == opset {
		return opset, nil
	}
	for _, n := range g.Nodes {
		if n.IsOpaque() && isDefaultDomain(n.Domain) {
			return 0, fmt.Errorf("cannot raise the model from opset %d to %d (%v): opaque %v cannot be converted", opset, target, why, n)
		}
	}
	return target, nil
}

// raisable reports whether g has IR nodes and no opaque default-domain
// node, so that its default-domain opset can be changed freely.
func raisable(g *graph.Graph) bool {
	ir := false
	for _, n := range g.Nodes {
		if !n.IsOpaque() {
			ir = true
		} else if isDefaultDomain(n.Domain) {
			return false
		}
	}
	return ir
}

// optString returns s for an optional proto string field: nil (absent) when
// s is empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return proto.String(s)
}
