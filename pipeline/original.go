package pipeline

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/atomicfile"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// WriteModel writes out to path. When out is the original model (s.Orig,
// which never-slower chooses when nothing else is shown faster), the file
// it was read from, src, is copied byte for byte instead of being encoded
// again: the user gets back exactly the model they gave, with its
// dynamic dimensions and everything xrl does not model, not the bound
// copy that was measured.
func (s *Start) WriteModel(path, src string, out *graph.Model) error {
	if out == s.Orig {
		return CopyModelFile(src, path)
	}
	if err := onnx.WriteFileWith(path, s.Writable(out), onnx.EncodeOptions{LeanValueInfo: true}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// CopyModelFile copies the ONNX file src to dst byte for byte. When dst is
// in another directory, the external data files src names are copied too,
// to the same places relative to dst, so that the copy loads.
func CopyModelFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("copying the original model: %w", err)
	}
	if err := atomicfile.WriteBytes(dst, data); err != nil {
		return err
	}
	from, err := filepath.Abs(filepath.Dir(src))
	if err != nil {
		return err
	}
	to, err := filepath.Abs(filepath.Dir(dst))
	if err != nil || from == to {
		return err
	}
	var mp onnxpb.ModelProto
	if err := proto.Unmarshal(data, &mp); err != nil {
		return fmt.Errorf("%s: not a valid ONNX model: %w", src, err)
	}
	for loc := range externalLocations(&mp) {
		if err := copyDataFile(filepath.Join(from, loc), filepath.Join(to, loc)); err != nil {
			return fmt.Errorf("copying the original model's external data: %w", err)
		}
	}
	return nil
}

// SelfContained returns the bytes of the ONNX file at path, for a backend
// to time the file as given (measure.ModelFile), or nil when the model
// names external data files (loaded from bytes, they would be looked for
// in the wrong place).
func SelfContained(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the original model: %w", err)
	}
	var mp onnxpb.ModelProto
	if err := proto.Unmarshal(data, &mp); err != nil {
		return nil, fmt.Errorf("%s: not a valid ONNX model: %w", path, err)
	}
	if len(externalLocations(&mp)) > 0 {
		return nil, nil
	}
	return data, nil
}

// copyDataFile copies the file src to dst, creating dst's directory.
func copyDataFile(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(dst, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}

// externalLocations returns the set of external data files (the
// "location" of each tensor stored externally) that mp names, in its
// graph, the graphs of its nodes' attributes and its functions.
func externalLocations(mp *onnxpb.ModelProto) map[string]bool {
	locs := map[string]bool{}
	tensor := func(t *onnxpb.TensorProto) {
		if t.GetDataLocation() != onnxpb.TensorProto_EXTERNAL {
			return
		}
		for _, kv := range t.GetExternalData() {
			if kv.GetKey() == "location" {
				locs[filepath.Clean(filepath.FromSlash(kv.GetValue()))] = true
			}
		}
	}
	sparse := func(s *onnxpb.SparseTensorProto) {
		if s != nil {
			tensor(s.GetValues())
			tensor(s.GetIndices())
		}
	}
	var walkGraph func(g *onnxpb.GraphProto)
	nodes := func(ns []*onnxpb.NodeProto) {
		for _, n := range ns {
			for _, a := range n.GetAttribute() {
				tensor(a.GetT())
				sparse(a.GetSparseTensor())
				for _, t := range a.GetTensors() {
					tensor(t)
				}
				walkGraph(a.GetG())
				for _, g := range a.GetGraphs() {
					walkGraph(g)
				}
			}
		}
	}
	walkGraph = func(g *onnxpb.GraphProto) {
		if g == nil {
			return
		}
		for _, t := range g.GetInitializer() {
			tensor(t)
		}
		for _, s := range g.GetSparseInitializer() {
			sparse(s)
		}
		nodes(g.GetNode())
	}
	walkGraph(mp.GetGraph())
	for _, f := range mp.GetFunctions() {
		nodes(f.GetNode())
	}
	return locs
}
