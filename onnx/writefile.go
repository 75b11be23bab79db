package onnx

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/atomicfile"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// Size limits for WriteFile.
const (
	// inlineLimit is the model size above which WriteFile moves tensors
	// out of line by default (protobuf refuses messages over 2 GB).
	inlineLimit = 1800 << 20
	// defaultExternalMin is the smallest tensor moved out of line when the
	// model is over inlineLimit.
	defaultExternalMin = 1024
)

// EncodeOptions configures WriteFileWith.
type EncodeOptions struct {
	// ExternalThreshold moves initializers with at least this many bytes of
	// data to the external data file "<model file name>.data" next to the
	// model. Zero means the default: only when the tensors add up to more
	// than 1.8 GB, and then every tensor of at least 1 KiB. Negative keeps
	// all data inline (and fails for models over 2 GB).
	ExternalThreshold int64
	// LeanValueInfo writes value_info only for the outputs of ops outside
	// xrl's table (which xrl needs when it reads the model again), not for
	// every intermediate value: ONNX Runtime infers those itself, and ran
	// the corpus encoder 10-14% slower with them (sizes or symbolic
	// dimensions alike). Models written for users and for timing use it.
	LeanValueInfo bool
}

// WriteFile writes m to path with default options. See WriteFileWith.
func WriteFile(path string, m *graph.Model) error {
	return WriteFileWith(path, m, EncodeOptions{})
}

// WriteFileWith writes m to path atomically: the model (and the external
// data file, if any tensor goes there) is written to a temporary file in
// the same directory, synced and renamed into place, so readers never see
// a partial file.
func WriteFileWith(path string, m *graph.Model, opts EncodeOptions) error {
	var policy externalPolicy
	switch limit := opts.ExternalThreshold; {
	case limit > 0:
		policy = func(raw []byte) bool { return int64(len(raw)) >= limit }
	case limit == 0 && m != nil && m.Graph != nil && constantBytes(m.Graph) > inlineLimit:
		policy = func(raw []byte) bool { return len(raw) >= defaultExternalMin }
	}
	mp, ext, err := buildModel(m, policy)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if opts.LeanValueInfo {
		leanValueInfo(mp.Graph)
	}
	if len(ext) > 0 {
		dataName := filepath.Base(path) + ".data"
		if err := writeExternal(filepath.Join(filepath.Dir(path), dataName), dataName, ext); err != nil {
			return err
		}
	}
	if size := proto.Size(mp); size > maxProtoSize {
		return fmt.Errorf("%s: model is %d bytes, over protobuf's 2 GB limit; set EncodeOptions.ExternalThreshold", path, size)
	}
	b, err := marshal(mp)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, func(f io.Writer) error {
		_, err := f.Write(b)
		return err
	})
}

// constantBytes estimates the data size of g's constants.
func constantBytes(g *graph.Graph) int64 {
	var n int64
	for _, v := range g.Constants() {
		sz := v.Const.DType.Size()
		if sz == 0 {
			sz = 1
		}
		n += int64(v.Const.Len()) * int64(sz)
	}
	return n
}

// writeExternal writes the data of ext to path, 64-byte aligned, and
// points each tensor at its bytes.
func writeExternal(path, location string, ext []externalTensor) error {
	return atomicfile.Write(path, func(f io.Writer) error {
		var off int64
		pad := make([]byte, 64)
		for _, x := range ext {
			if r := off % 64; r != 0 {
				if _, err := f.Write(pad[:64-r]); err != nil {
					return err
				}
				off += 64 - r
			}
			if _, err := f.Write(x.data); err != nil {
				return err
			}
			x.tp.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
			x.tp.ExternalData = []*onnxpb.StringStringEntryProto{
				{Key: proto.String("location"), Value: proto.String(location)},
				{Key: proto.String("offset"), Value: proto.String(strconv.FormatInt(off, 10))},
				{Key: proto.String("length"), Value: proto.String(strconv.Itoa(len(x.data)))},
			}
			off += int64(len(x.data))
		}
		return nil
	})
}
