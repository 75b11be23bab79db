package inputs

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// maxMember bounds the uncompressed size of one .npz member read.
const maxMember = 1 << 34

// Read loads a user's input sets from path:
//   - a directory in ONNX's test-data layout: input_0.pb, input_1.pb ...
//     (serialized TensorProtos, one input set), or test_data_set_0,
//     test_data_set_1 ... directories of them (one set each, as next to a
//     model of the ONNX model zoo);
//   - an .npz archive (numpy.savez, compressed or not; one set), or a
//     directory of them (one set each);
//   - a single input_N.pb file (one set of one tensor).
//
// A tensor is matched to the model's input of its name, or else to the
// input at its position (see Set.Match). Expected outputs (output_N.pb)
// are ignored: the models are checked against each other.
func Read(path string) ([]Set, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("input sets: %w", err)
	}
	if !st.IsDir() {
		s, err := readFile(path)
		if err != nil {
			return nil, err
		}
		return []Set{s}, nil
	}
	if pbs := numbered(path, "input_", ".pb"); len(pbs) > 0 {
		s, err := readPBDir(path, pbs)
		if err != nil {
			return nil, err
		}
		return []Set{s}, nil
	}
	var sets []Set
	for _, dir := range numbered(path, "test_data_set_", "") {
		pbs := numbered(dir, "input_", ".pb")
		if len(pbs) == 0 {
			return nil, fmt.Errorf("input sets: %s holds no input_N.pb file", dir)
		}
		s, err := readPBDir(dir, pbs)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	if len(sets) > 0 {
		return sets, nil
	}
	npzs, _ := filepath.Glob(filepath.Join(path, "*.npz"))
	sort.Strings(npzs)
	for _, f := range npzs {
		s, err := readNPZ(f)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("input sets: %s holds no input_N.pb files, test_data_set_N directories or .npz archives", path)
	}
	return sets, nil
}

// readFile reads one .npz archive or one .pb tensor as a set.
func readFile(path string) (Set, error) {
	if strings.EqualFold(filepath.Ext(path), ".npz") {
		return readNPZ(path)
	}
	if strings.EqualFold(filepath.Ext(path), ".pb") {
		return readPBDir(path, []string{path})
	}
	return Set{}, fmt.Errorf("input sets: %s is neither an .npz archive, a .pb tensor nor a directory of them", path)
}

// numbered returns the entries of dir named prefix<N>suffix, by N.
func numbered(dir, prefix, suffix string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type entry struct {
		n    int
		path string
	}
	var found []entry
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, prefix), suffix))
		if err != nil || n < 0 {
			continue
		}
		found = append(found, entry{n, filepath.Join(dir, name)})
	}
	sort.Slice(found, func(i, j int) bool { return found[i].n < found[j].n })
	out := make([]string, len(found))
	for i, e := range found {
		out[i] = e.path
	}
	return out
}

// readPBDir reads the TensorProto files pbs (in input order) as the set
// named name.
func readPBDir(name string, pbs []string) (Set, error) {
	s := Set{Name: name, Tensors: map[string]*graph.Tensor{}}
	for _, f := range pbs {
		data, err := os.ReadFile(f)
		if err != nil {
			return s, fmt.Errorf("input sets: %w", err)
		}
		t, key, err := onnx.DecodeTensor(data)
		if err != nil {
			return s, fmt.Errorf("input sets: %s: %w", f, err)
		}
		if key == "" {
			key = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		}
		if err := s.add(key, t); err != nil {
			return s, fmt.Errorf("input sets: %s: %w", f, err)
		}
	}
	return s, nil
}

// readNPZ reads an .npz archive (a zip of .npy members) as one set.
func readNPZ(path string) (Set, error) {
	s := Set{Name: path, Tensors: map[string]*graph.Tensor{}}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return s, fmt.Errorf("input sets: %s: not an .npz archive: %w", path, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".npy") {
			continue
		}
		t, err := readMember(f)
		if err != nil {
			return s, fmt.Errorf("input sets: %s: member %s: %w", path, f.Name, err)
		}
		if err := s.add(strings.TrimSuffix(f.Name, ".npy"), t); err != nil {
			return s, fmt.Errorf("input sets: %s: %w", path, err)
		}
	}
	if len(s.Order) == 0 {
		return s, fmt.Errorf("input sets: %s holds no .npy array", path)
	}
	return s, nil
}

// readMember decodes one .npy member of an archive.
func readMember(f *zip.File) (*graph.Tensor, error) {
	if f.UncompressedSize64 > maxMember {
		return nil, fmt.Errorf("%d bytes is too large", f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(rc, maxMember+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxMember {
		return nil, errors.New("too large")
	}
	return DecodeNPY(buf.Bytes())
}

// add puts tensor t under key, in order.
func (s *Set) add(key string, t *graph.Tensor) error {
	if _, dup := s.Tensors[key]; dup {
		return fmt.Errorf("two tensors named %q", key)
	}
	s.Tensors[key] = t
	s.Order = append(s.Order, key)
	return nil
}
