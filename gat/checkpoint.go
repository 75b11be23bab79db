package gat

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/xrl-dev/xrl/internal/ckframe"
)

// Checkpoint format (little-endian):
//
//	magic "xrl-gat\n" | uint32 version | uint32 n | n bytes of JSON Config
//	| uint32 params | per param: uint16 len, name, uint8 rank, rank×uint32
//	  dims, float32 values | uint32 CRC-32C of all the bytes before it
//
// The parameter list must match, name by name and shape by shape, the
// list New builds from the stored Config; the checksum catches bit flips
// in the values, which no other check would see. Version 1 had no
// checksum.
const (
	checkpointMagic   = "xrl-gat\n"
	checkpointVersion = 2
	maxConfigJSON     = 1 << 16
)

// frame is the checkpoint's magic, version and checksum (see ckframe).
var frame = ckframe.Frame{Magic: checkpointMagic, Version: checkpointVersion, Kind: "policy"}

// Save writes the configuration and parameter values of n to w. The
// bytes depend only on the configuration and the values.
func (n *Net) Save(w io.Writer) error {
	cfg, err := json.Marshal(n.m.cfg)
	if err != nil {
		return fmt.Errorf("gat: save: %w", err)
	}
	var bw bytes.Buffer
	le := binary.LittleEndian
	var buf [4]byte
	u32 := func(v int) { le.PutUint32(buf[:], uint32(v)); bw.Write(buf[:]) }
	u32(len(cfg))
	bw.Write(cfg)
	u32(len(n.m.params))
	for _, p := range n.m.params {
		le.PutUint16(buf[:2], uint16(len(p.Name)))
		bw.Write(buf[:2])
		bw.WriteString(p.Name)
		bw.WriteByte(byte(len(p.Shape)))
		for _, d := range p.Shape {
			u32(d)
		}
		for _, v := range p.Value {
			le.PutUint32(buf[:], math.Float32bits(v))
			bw.Write(buf[:])
		}
	}
	if _, err := w.Write(frame.Seal(bw.Bytes())); err != nil {
		return fmt.Errorf("gat: save: %w", err)
	}
	return nil
}

// Load reads a network written by Save. A truncated, corrupt or
// mismatched checkpoint gives an error saying what is wrong.
func Load(r io.Reader) (*Net, error) {
	fail := func(format string, a ...any) (*Net, error) {
		return nil, fmt.Errorf("gat: load checkpoint: "+format, a...)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return fail("%v", err)
	}
	body, err := frame.Open(data)
	if err != nil {
		return fail("%v", err)
	}
	br := bufio.NewReader(bytes.NewReader(body))
	le := binary.LittleEndian
	var buf [4]byte
	u32 := func() (int, error) {
		if _, err := io.ReadFull(br, buf[:]); err != nil {
			return 0, errTruncated(err)
		}
		return int(le.Uint32(buf[:])), nil
	}
	nc, err := u32()
	if err != nil {
		return fail("%v", err)
	}
	if nc > maxConfigJSON {
		return fail("config of %d bytes", nc)
	}
	js := make([]byte, nc)
	if _, err := io.ReadFull(br, js); err != nil {
		return fail("config: %v", errTruncated(err))
	}
	var cfg Config
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return fail("config: %v", err)
	}
	net, err := New(cfg)
	if err != nil {
		return fail("%v", err)
	}
	np, err := u32()
	if err != nil {
		return fail("%v", err)
	}
	if np != len(net.m.params) {
		return fail("%d parameter tensors, the config has %d", np, len(net.m.params))
	}
	for _, p := range net.m.params {
		if _, err := io.ReadFull(br, buf[:2]); err != nil {
			return fail("parameter %s: %v", p.Name, errTruncated(err))
		}
		name := make([]byte, le.Uint16(buf[:2]))
		if _, err := io.ReadFull(br, name); err != nil {
			return fail("parameter %s: %v", p.Name, errTruncated(err))
		}
		if string(name) != p.Name {
			return fail("parameter %q where %s was expected", name, p.Name)
		}
		rank, err := br.ReadByte()
		if err != nil {
			return fail("parameter %s: %v", p.Name, errTruncated(err))
		}
		shape := make([]int, rank)
		for i := range shape {
			if shape[i], err = u32(); err != nil {
				return fail("parameter %s: %v", p.Name, err)
			}
		}
		if !slices.Equal(shape, p.Shape) {
			return fail("parameter %s has shape %v, the config gives %v", p.Name, shape, p.Shape)
		}
		for i := range p.Value {
			if _, err := io.ReadFull(br, buf[:]); err != nil {
				return fail("parameter %s: %v", p.Name, errTruncated(err))
			}
			v := math.Float32frombits(le.Uint32(buf[:]))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fail("parameter %s[%d] is %v", p.Name, i, v)
			}
			p.Value[i] = v
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return fail("trailing data after the last parameter")
	}
	return net, nil
}

func errTruncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated")
	}
	return err
}

// SaveFile writes the checkpoint to path atomically (see atomicfile).
func (n *Net) SaveFile(path string) error { return ckframe.WriteFile("gat", path, n.Save) }

// LoadFile reads a checkpoint written by SaveFile or Save.
func LoadFile(path string) (*Net, error) { return ckframe.ReadFile("gat", path, Load) }
