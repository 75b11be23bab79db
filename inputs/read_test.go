package inputs

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// gatherModel reads the model of testdata/onnx_gather.
func gatherModel(t *testing.T) *graph.Graph {
	t.Helper()
	m, err := onnx.ReadFile("testdata/onnx_gather/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	return m.Graph
}

// TestReadLayouts reads the same model's inputs from every layout Read
// accepts and checks the values against what NumPy or ONNX wrote.
func TestReadLayouts(t *testing.T) {
	tests := []struct {
		path string
		sets int
		// first three elements of data, element [4,3,2,1], and indices.
		first   []float32
		last    float32
		indices []int64
	}{
		{"testdata/onnx_gather", 1, []float32{1.7640524, 0.4001572, 0.978738}, 0, []int64{0, 1, 3}},
		{"testdata/onnx_gather/test_data_set_0", 1, []float32{1.7640524, 0.4001572, 0.978738}, 0, []int64{0, 1, 3}},
		{"testdata/npz/gather_named.npz", 1, []float32{0.00123015, 0.29874554, -0.27413785}, 0.19274591, []int64{4, 0, 3}},
		{"testdata/npz/gather_positional.npz", 1, []float32{0.00123015, 0.29874554, -0.27413785}, 0.19274591, []int64{4, 0, 3}},
		{"testdata/npz", 2, []float32{0.00123015, 0.29874554, -0.27413785}, 0.19274591, []int64{4, 0, 3}},
	}
	g := gatherModel(t)
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			sets, err := Read(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if len(sets) != tc.sets {
				t.Fatalf("%d sets, want %d", len(sets), tc.sets)
			}
			for _, s := range sets {
				m, err := s.Match(g)
				if err != nil {
					t.Fatal(err)
				}
				data, idx := m["data"], m["indices"]
				if !slices.Equal(data.Shape, []int{5, 4, 3, 2}) || data.DType != graph.Float32 {
					t.Fatalf("%s: data is %v %v", s.Name, data.DType, data.Shape)
				}
				d := data.Float32s()
				for i, want := range tc.first {
					if math.Abs(float64(d[i]-want)) > 1e-6 {
						t.Errorf("%s: data[%d] = %g, want %g", s.Name, i, d[i], want)
					}
				}
				if tc.last != 0 && math.Abs(float64(d[len(d)-1]-tc.last)) > 1e-6 {
					t.Errorf("%s: data[4,3,2,1] = %g, want %g (Fortran order read wrong?)", s.Name, d[len(d)-1], tc.last)
				}
				if !slices.Equal(idx.Int64s(), tc.indices) {
					t.Errorf("%s: indices %v, want %v", s.Name, idx.Int64s(), tc.indices)
				}
			}
		})
	}
}

// TestReadVADSets reads a directory of .npz archives at two shapes and
// groups them by shape against vad_if's declared inputs.
func TestReadVADSets(t *testing.T) {
	sets, err := Read("testdata/npz_vad")
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.ReadFile("../testdata/controlflow/vad_if.onnx")
	if err != nil {
		t.Fatal(err)
	}
	groups, err := ByShape(m.Graph, sets)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, gr := range groups {
		got = append(got, gr.Binding())
	}
	want := []string{"sr=scalar x=1x512", "sr=scalar x=1x256"}
	if !slices.Equal(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}
	if sr := groups[1].Sets[0].Tensors["sr"].Int64s()[0]; sr != 8000 {
		t.Errorf("sr = %d in %s, want 8000", sr, groups[1].Sets[0].Name)
	}
}

// TestMatchErrors checks the messages of sets that do not fit the model.
func TestMatchErrors(t *testing.T) {
	g := gatherModel(t)
	data := graph.NewTensor(graph.Float32, 5, 4, 3, 2)
	idx := graph.FromInt64([]int64{1, 2, 3}, 3)
	tests := []struct {
		name string
		set  Set
		want string
	}{
		{"missing input", Set{Name: "s", Tensors: map[string]*graph.Tensor{"data": data}}, `no tensor for input "indices"`},
		{"unknown name", Set{Name: "s", Tensors: map[string]*graph.Tensor{"data": data, "indices": idx, "extra": idx}}, `"extra" matches no input`},
		{"wrong dtype", Set{Name: "s", Tensors: map[string]*graph.Tensor{"data": idx, "indices": idx}}, `"data" is float32, the data is int64`},
		{"wrong shape", Set{Name: "s", Tensors: map[string]*graph.Tensor{"data": graph.NewTensor(graph.Float32, 5, 4), "indices": idx}}, `the data 5x4`},
		{"two for one", Set{Name: "s", Tensors: map[string]*graph.Tensor{"indices": idx, "arr_0": idx}, Order: []string{"indices", "arr_0"}}, `two tensors for input "indices"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.set.Match(g)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestReadRejects checks that paths holding no input set are errors.
func TestReadRejects(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.npz")
	if err := os.WriteFile(bad, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, bad, filepath.Join(dir, "missing"), "testdata/make_npz.py"} {
		if _, err := Read(p); err == nil {
			t.Errorf("Read(%s) succeeded", p)
		}
	}
}

// npyFile returns a version-1 .npy file of header h and data.
func npyFile(h string, data []byte) []byte {
	out := append([]byte(npyMagic), 1, 0, 0, 0)
	binary.LittleEndian.PutUint16(out[8:], uint16(len(h)))
	return append(append(out, h...), data...)
}

// TestDecodeNPYHeaders checks header forms and the errors of bad ones.
func TestDecodeNPYHeaders(t *testing.T) {
	two := []byte{1, 0, 0, 0, 2, 0, 0, 0}
	tests := []struct {
		header string
		data   []byte
		shape  []int
		err    string
	}{
		{"{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n", two, []int{2}, ""},
		{`{"descr": "<i4", "fortran_order": False, "shape": (1, 2)}`, two, []int{1, 2}, ""},
		{"{'descr': '<i8', 'fortran_order': False, 'shape': (), }", two, []int{}, ""},
		{"{'descr': '|b1', 'fortran_order': False, 'shape': (2L,), }", []byte{0, 1}, []int{2}, ""},
		{"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", two, nil, "not supported"},
		{"{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", two, nil, "want a quoted string"},
		{"{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", two, nil, "needs"},
		{"{'descr': '<i4', 'shape': (2,), }", two, nil, "fortran_order"},
		{"{'descr': '<i4', 'fortran_order': False, 'shape': (2,", two, nil, "want"},
	}
	for _, tc := range tests {
		tt, err := DecodeNPY(npyFile(tc.header, tc.data))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.header, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.header, err)
			continue
		}
		if !slices.Equal(tt.Shape, tc.shape) {
			t.Errorf("%s: shape %v, want %v", tc.header, tt.Shape, tc.shape)
		}
	}
}

// FuzzDecodeNPY checks that no input makes the .npy decoder panic.
func FuzzDecodeNPY(f *testing.F) {
	f.Add(npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }", make([]byte, 8)))
	f.Add(npyFile("{'descr': '>i8', 'fortran_order': False, 'shape': (0, 3), }", nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		if tt, err := DecodeNPY(data); err == nil && tt.Len() != graph.DataLen(tt.Data) {
			t.Fatalf("shape %v holds %d elements, the data %d", tt.Shape, tt.Len(), graph.DataLen(tt.Data))
		}
	})
}
