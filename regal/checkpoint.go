package regal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/xrl-dev/xrl/internal/atomicfile"
)

// Checkpoint format (little-endian):
//
//	magic "xrl-regal\n" | uint32 version | uint32 n | n bytes of JSON
//	Config | per parameter of New(Config), in order: float32 values |
//	uint32 CRC-32C of all the bytes before it
const (
	checkpointMagic   = "xrl-regal\n"
	checkpointVersion = 1
	maxConfigJSON     = 1 << 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes the network's configuration and weights to w.
func (n *Net) Save(w io.Writer) error {
	var b bytes.Buffer
	cfg, err := json.Marshal(n.cfg)
	if err != nil {
		return fmt.Errorf("regal: save: %w", err)
	}
	le := binary.LittleEndian
	b.WriteString(checkpointMagic)
	b.Write(le.AppendUint32(nil, checkpointVersion))
	b.Write(le.AppendUint32(nil, uint32(len(cfg))))
	b.Write(cfg)
	for _, p := range n.Params() {
		for _, v := range p.Value {
			b.Write(le.AppendUint32(nil, math.Float32bits(v)))
		}
	}
	b.Write(le.AppendUint32(nil, crc32.Checksum(b.Bytes(), castagnoli)))
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("regal: save: %w", err)
	}
	return nil
}

// Load reads a network written by Save; a truncated or corrupt checkpoint
// is an error.
func Load(r io.Reader) (*Net, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("regal: %w", err)
	}
	fail := func(msg string) (*Net, error) {
		return nil, fmt.Errorf("regal: not a valid network checkpoint: %s", msg)
	}
	le := binary.LittleEndian
	if len(data) < len(checkpointMagic)+12 || string(data[:len(checkpointMagic)]) != checkpointMagic {
		return fail("bad magic or truncated")
	}
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return fail("checksum mismatch (corrupt or truncated)")
	}
	p := body[len(checkpointMagic):]
	if v := le.Uint32(p); v != checkpointVersion {
		return fail(fmt.Sprintf("version %d, want %d", v, checkpointVersion))
	}
	nc := le.Uint32(p[4:])
	if nc > maxConfigJSON || int(nc) > len(p)-8 {
		return fail("configuration truncated")
	}
	var cfg Config
	if err := json.Unmarshal(p[8:8+nc], &cfg); err != nil {
		return fail(err.Error())
	}
	net, err := New(cfg)
	if err != nil {
		return nil, err
	}
	p = p[8+nc:]
	for _, prm := range net.Params() {
		if len(p) < 4*len(prm.Value) {
			return fail("weights truncated")
		}
		for i := range prm.Value {
			prm.Value[i] = math.Float32frombits(le.Uint32(p[4*i:]))
		}
		p = p[4*len(prm.Value):]
	}
	if len(p) != 0 {
		return fail("trailing data after the weights")
	}
	return net, nil
}

// SaveFile writes the checkpoint to path atomically.
func (n *Net) SaveFile(path string) error {
	if err := atomicfile.Write(path, n.Save); err != nil {
		return fmt.Errorf("regal: save: %w", err)
	}
	return nil
}

// LoadFile reads a checkpoint written by SaveFile.
func LoadFile(path string) (*Net, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file", path)
		}
		return nil, fmt.Errorf("regal: %w", err)
	}
	defer f.Close()
	n, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}
