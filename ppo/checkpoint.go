package ppo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/xrl-dev/xrl/gat"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/atomicfile"
	"github.com/xrl-dev/xrl/internal/ckframe"
	"github.com/xrl-dev/xrl/onnx"
)

// Checkpoint format (little-endian): magic "xrl-ppo\n", uint32 version,
// then named sections until the end of the file, each
//
//	uint16 name length | name | uint64 length | bytes
//
// Sections: "config" (JSON Config), "state" (JSON State), "net" (a gat
// checkpoint, gat.Net.Save), "adam" (uint32 count, then per parameter
// uint32 n and n float32 first moments and n second moments; absent
// before the first update), "best" (the best graph as an ONNX model;
// absent while no graph beat the start graph) and "end" (empty, last: a
// file cut at a section boundary is recognised as truncated), then a
// uint32 CRC-32C of every byte before it (bit flips anywhere, weights
// included, are caught before anything is parsed; version 1 had none).
const (
	checkpointMagic   = "xrl-ppo\n"
	checkpointVersion = 2
)

// frame is the checkpoint's magic, version and checksum (see ckframe).
var frame = ckframe.Frame{Magic: checkpointMagic, Version: checkpointVersion, Kind: "training"}

// Checkpoint is the content of an agent.ckpt file.
type Checkpoint struct {
	Config Config
	State  State
	Net    *gat.Net
	// Best is the fastest model found so far (nil: none beat the start).
	Best *graph.Model

	adamM, adamV [][]float32
	bestBytes    []byte
}

// checkpoint writes agent.ckpt for the trainer's current state.
func (t *Trainer) checkpoint() error {
	off, err := t.metrics.sync()
	if err != nil {
		return err
	}
	t.st.MetricsOffset = off
	if t.st.ActRNG, err = t.actSrc.MarshalBinary(); err != nil {
		return err
	}
	if t.st.ShuffleRNG, err = t.shufSrc.MarshalBinary(); err != nil {
		return err
	}
	t.st.AdamSteps = t.opt.Steps
	var buf bytes.Buffer
	js, err := json.Marshal(t.cfg)
	if err != nil {
		return err
	}
	section(&buf, "config", js)
	if js, err = json.Marshal(t.st); err != nil {
		return err
	}
	section(&buf, "state", js)
	var nb bytes.Buffer
	if err := t.net.Save(&nb); err != nil {
		return err
	}
	section(&buf, "net", nb.Bytes())
	if m, v := t.opt.Moments(); m != nil {
		section(&buf, "adam", encodeMoments(m, v))
	}
	if t.bestBytes != nil {
		section(&buf, "best", t.bestBytes)
	}
	section(&buf, "end", nil)
	return atomicfile.WriteBytes(filepath.Join(t.dir, CheckpointFile), frame.Seal(buf.Bytes()))
}

func section(w *bytes.Buffer, name string, data []byte) {
	binary.Write(w, binary.LittleEndian, uint16(len(name)))
	w.WriteString(name)
	binary.Write(w, binary.LittleEndian, uint64(len(data)))
	w.Write(data)
}

func encodeMoments(m, v [][]float32) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	binary.Write(&b, le, uint32(len(m)))
	for i := range m {
		binary.Write(&b, le, uint32(len(m[i])))
		binary.Write(&b, le, m[i])
		binary.Write(&b, le, v[i])
	}
	return b.Bytes()
}

func decodeMoments(data []byte, params []*gat.Param) (m, v [][]float32, err error) {
	r := bytes.NewReader(data)
	le := binary.LittleEndian
	var n uint32
	if err := binary.Read(r, le, &n); err != nil {
		return nil, nil, errors.New("adam section truncated")
	}
	if int(n) != len(params) {
		return nil, nil, fmt.Errorf("adam state for %d parameters, the network has %d", n, len(params))
	}
	m, v = make([][]float32, n), make([][]float32, n)
	for i, p := range params {
		var k uint32
		if err := binary.Read(r, le, &k); err != nil {
			return nil, nil, errors.New("adam section truncated")
		}
		if int(k) != len(p.Value) {
			return nil, nil, fmt.Errorf("adam state of %s has %d values, the parameter %d", p.Name, k, len(p.Value))
		}
		m[i], v[i] = make([]float32, k), make([]float32, k)
		if binary.Read(r, le, m[i]) != nil || binary.Read(r, le, v[i]) != nil {
			return nil, nil, errors.New("adam section truncated")
		}
		for j := range m[i] {
			if bad(m[i][j]) || bad(v[i][j]) || v[i][j] < 0 {
				return nil, nil, fmt.Errorf("adam state of %s[%d] is not finite", p.Name, j)
			}
		}
	}
	if r.Len() != 0 {
		return nil, nil, errors.New("trailing data in the adam section")
	}
	return m, v, nil
}

func bad(x float32) bool { return math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) }

// readSections parses the container of a checkpoint file.
func readSections(data []byte) (map[string][]byte, error) {
	body, err := frame.Open(data)
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(body)
	le := binary.LittleEndian
	out := map[string][]byte{}
	for {
		if r.Len() == 0 {
			return nil, errors.New("truncated (no end marker)")
		}
		var nl uint16
		if err := binary.Read(r, le, &nl); err != nil {
			return nil, errors.New("truncated section header")
		}
		name := make([]byte, nl)
		if _, err := io.ReadFull(r, name); err != nil {
			return nil, errors.New("truncated section name")
		}
		var n uint64
		if err := binary.Read(r, le, &n); err != nil {
			return nil, fmt.Errorf("section %q: truncated", name)
		}
		if n > uint64(r.Len()) {
			return nil, fmt.Errorf("section %q: %d bytes announced, %d left", name, n, r.Len())
		}
		b := make([]byte, n)
		io.ReadFull(r, b)
		if string(name) == "end" {
			if r.Len() != 0 {
				return nil, errors.New("data after the end marker")
			}
			break
		}
		if _, dup := out[string(name)]; dup {
			return nil, fmt.Errorf("section %q appears twice", name)
		}
		out[string(name)] = b
	}
	for _, need := range []string{"config", "state", "net"} {
		if out[need] == nil {
			return nil, fmt.Errorf("section %q is missing", need)
		}
	}
	return out, nil
}

// ReadCheckpoint reads an agent.ckpt file. Errors name the file and what
// is wrong with it.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ck, err := decodeCheckpoint(data, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ck, nil
}

// decodeCheckpoint parses a checkpoint; the best graph only when withBest.
func decodeCheckpoint(data []byte, withBest bool) (*Checkpoint, error) {
	secs, err := readSections(data)
	if err != nil {
		return nil, err
	}
	ck := &Checkpoint{}
	if err := strictJSON(secs["config"], &ck.Config); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := ck.Config.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := strictJSON(secs["state"], &ck.State); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	if ck.Net, err = gat.Load(bytes.NewReader(secs["net"])); err != nil {
		return nil, err
	}
	if a := secs["adam"]; a != nil {
		if ck.adamM, ck.adamV, err = decodeMoments(a, ck.Net.Params()); err != nil {
			return nil, err
		}
	}
	if b := secs["best"]; b != nil && withBest {
		m, err := onnx.Decode(b, onnx.DecodeOptions{Source: "best graph"})
		if err != nil {
			return nil, err
		}
		if err := m.Graph.InferShapes(); err != nil {
			return nil, fmt.Errorf("best graph: %w", err)
		}
		ck.Best, ck.bestBytes = m, b
	}
	return ck, nil
}

func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// LoadPolicy reads a policy network from a training checkpoint
// (agent.ckpt, with its Config) or from a bare gat checkpoint (with
// DefaultConfig).
func LoadPolicy(path string) (*gat.Net, Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Config{}, err
	}
	defer f.Close()
	head, _ := bufio.NewReader(f).Peek(len(checkpointMagic))
	if string(head) != checkpointMagic {
		net, err := gat.LoadFile(path)
		return net, DefaultConfig(), err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Config{}, err
	}
	ck, err := decodeCheckpoint(data, false)
	if err != nil {
		return nil, Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return ck.Net, ck.Config, nil
}
