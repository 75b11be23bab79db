package onnx

import (
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// DecodeOptions configures Decode.
type DecodeOptions struct {
	// BaseDir is the directory that external tensor data (locations stored
	// in the model) is read from. Empty rejects models with external data.
	BaseDir string
	// Source names the model in error messages, usually its file path.
	Source string
}

// ReadFile reads and decodes the ONNX model at path, loading external
// tensor data from files next to it. Errors name the file.
func ReadFile(path string) (*graph.Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(data, DecodeOptions{BaseDir: filepath.Dir(path), Source: path})
}

// invalidModel wraps the detail of a file that is not a well-formed model.
func invalidModel(format string, args ...any) error {
	return fmt.Errorf("not a valid ONNX model: "+format, args...)
}

// Decode converts a serialized ModelProto to a graph.Model. See the package
// documentation for how operators are mapped; errors start with
// opts.Source when it is set.
func Decode(data []byte, opts DecodeOptions) (*graph.Model, error) {
	m, err := decode(data, opts)
	if err != nil && opts.Source != "" {
		return nil, fmt.Errorf("%s: %w", opts.Source, err)
	}
	return m, err
}

func decode(data []byte, opts DecodeOptions) (*graph.Model, error) {
	if len(data) == 0 {
		return nil, invalidModel("empty input")
	}
	mp := new(onnxpb.ModelProto)
	if err := proto.Unmarshal(data, mp); err != nil {
		return nil, invalidModel("%v", err)
	}
	if mp.Graph == nil {
		return nil, invalidModel("no graph")
	}
	m := &graph.Model{
		IRVersion:       mp.GetIrVersion(),
		ProducerName:    mp.GetProducerName(),
		ProducerVersion: mp.GetProducerVersion(),
		Domain:          mp.GetDomain(),
		ModelVersion:    mp.GetModelVersion(),
		Doc:             mp.GetDocString(),
	}
	for _, o := range mp.OpsetImport {
		m.Opsets = append(m.Opsets, graph.OpsetID{Domain: o.GetDomain(), Version: o.GetVersion()})
	}
	for _, kv := range mp.MetadataProps {
		m.Metadata = append(m.Metadata, graph.StringPair{Key: kv.GetKey(), Value: kv.GetValue()})
	}
	extra := &onnxpb.ModelProto{TrainingInfo: mp.TrainingInfo, Functions: mp.Functions}
	extra.ProtoReflect().SetUnknown(mp.ProtoReflect().GetUnknown())
	b, err := marshal(extra)
	if err != nil {
		return nil, err
	}
	if len(b) > 0 {
		m.Extra = b
	}
	opset := m.Opset("")
	ext := newExternalReader(opts.BaseDir)
	var ranks map[string]int
	newDecoder := func(strict bool) *decoder {
		return &decoder{
			opset:  opset,
			irOK:   opset >= minLegacyOpset && opset <= maxIROpset,
			legacy: opset < minIROpset,
			strict: strict,
			ext:    ext,
			ranks:  ranks,
		}
	}
	d := newDecoder(false)
	m.Graph, err = d.graph(mp.Graph)
	if err != nil {
		return nil, err
	}
	if len(d.needRank) > 0 {
		// Old-opset Softmax nodes of unknown rank: learn the ranks from
		// the decoded graph and decode again.
		if ranks = probeRanks(m.Graph, d.needRank); len(ranks) > 0 {
			if m.Graph, err = newDecoder(false).graph(mp.Graph); err != nil {
				return nil, err
			}
		}
	}
	if d.irOK && d.legacy && mixedDefaultDomain(m.Graph) {
		// The export cannot raise this model's opset past its opaque
		// nodes, so it will write IR nodes in the old form: import again,
		// keeping only nodes that survive that.
		if m.Graph, err = newDecoder(true).graph(mp.Graph); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// mixedDefaultDomain reports whether g has both IR nodes and opaque
// default-domain nodes.
func mixedDefaultDomain(g *graph.Graph) bool {
	ir, opaque := false, false
	for _, n := range g.Nodes {
		switch {
		case !n.IsOpaque():
			ir = true
		case isDefaultDomain(n.Domain):
			opaque = true
		}
	}
	return ir && opaque
}

// newExternalReader reads external tensor data relative to dir.
func newExternalReader(dir string) externalReader {
	return func(location string, offset, length int64) ([]byte, error) {
		if dir == "" {
			return nil, fmt.Errorf("external data %q: no base directory to read it from (use ReadFile or DecodeOptions.BaseDir)", location)
		}
		clean := filepath.Clean(filepath.FromSlash(location))
		if filepath.IsAbs(clean) || clean == ".." || len(clean) > 2 && clean[:3] == ".."+string(filepath.Separator) {
			return nil, fmt.Errorf("external data location %q is outside the model's directory", location)
		}
		path := filepath.Join(dir, clean)
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("external data: %w", err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("external data: %w", err)
		}
		if offset > st.Size() || length > st.Size()-offset {
			return nil, fmt.Errorf("external data %s: %d bytes at offset %d run past the end of the file (%d bytes)", path, length, offset, st.Size())
		}
		buf := make([]byte, length)
		if _, err := f.ReadAt(buf, offset); err != nil {
			return nil, fmt.Errorf("external data %s: %w", path, err)
		}
		return buf, nil
	}
}
