package regal

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/xrl-dev/xrl/internal/ckframe"
)

// Checkpoint format: an internal/ckframe frame (magic "xrl-regal\n",
// version, CRC-32C of everything before it) whose body is, little-endian,
//
//	uint32 n | n bytes of JSON Config | per parameter of New(Config), in
//	order: float32 values
const maxConfigJSON = 1 << 16

// frame is the regal checkpoint's framing.
var frame = ckframe.Frame{Magic: "xrl-regal\n", Version: 1, Kind: "REGAL network"}

// Save writes the network's configuration and weights to w.
func (n *Net) Save(w io.Writer) error {
	cfg, err := json.Marshal(n.cfg)
	if err != nil {
		return fmt.Errorf("regal: save: %w", err)
	}
	le := binary.LittleEndian
	b := le.AppendUint32(nil, uint32(len(cfg)))
	b = append(b, cfg...)
	for _, p := range n.Params() {
		for _, v := range p.Value {
			b = le.AppendUint32(b, math.Float32bits(v))
		}
	}
	if _, err := w.Write(frame.Seal(b)); err != nil {
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
	p, err := frame.Open(data)
	if err != nil {
		return fail(err.Error())
	}
	le := binary.LittleEndian
	if len(p) < 4 {
		return fail("configuration truncated")
	}
	nc := le.Uint32(p)
	if nc > maxConfigJSON || int(nc) > len(p)-4 {
		return fail("configuration truncated")
	}
	var cfg Config
	if err := json.Unmarshal(p[4:4+nc], &cfg); err != nil {
		return fail(err.Error())
	}
	net, err := New(cfg)
	if err != nil {
		return nil, err
	}
	p = p[4+nc:]
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
func (n *Net) SaveFile(path string) error { return ckframe.WriteFile("regal", path, n.Save) }

// LoadFile reads a checkpoint written by SaveFile.
func LoadFile(path string) (*Net, error) { return ckframe.ReadFile("regal", path, Load) }
