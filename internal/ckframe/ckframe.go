// Package ckframe provides the framing that xrl's binary checkpoints share:
//
//	magic | uint32 version | body | uint32 CRC-32C of every byte before it
//
// (little-endian). The checksum catches bit flips and truncation anywhere,
// weights included, before the body is parsed.
package ckframe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"

	"github.com/xrl-dev/xrl/internal/atomicfile"
)

// castagnoli is the CRC-32C table of checkpoint checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Frame describes one checkpoint format.
type Frame struct {
	Magic   string // leading bytes that identify the format
	Version uint32 // the only version this build reads and writes
	Kind    string // what the file holds, for errors ("policy", "training")
}

// Seal returns body framed: magic, version, body, checksum.
func (f Frame) Seal(body []byte) []byte {
	le := binary.LittleEndian
	out := make([]byte, 0, len(f.Magic)+len(body)+8)
	out = append(out, f.Magic...)
	out = le.AppendUint32(out, f.Version)
	out = append(out, body...)
	return AppendChecksum(out)
}

// AppendChecksum appends the checksum of b to b. Seal ends a frame so;
// tests use it to re-seal damaged frames and reach the checks behind the
// checksum.
func AppendChecksum(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// Open checks the frame of data and returns its body. The errors say what
// is wrong: another format, another version, truncation or a checksum
// mismatch.
func (f Frame) Open(data []byte) ([]byte, error) {
	if !strings.HasPrefix(string(data), f.Magic) {
		return nil, fmt.Errorf("not an xrl %s checkpoint", f.Kind)
	}
	le := binary.LittleEndian
	head := len(f.Magic) + 4
	if len(data) < head {
		return nil, fmt.Errorf("truncated")
	}
	if ver := le.Uint32(data[len(f.Magic):]); ver != f.Version {
		return nil, fmt.Errorf("version %d, this build reads version %d", ver, f.Version)
	}
	if len(data) < head+4 {
		return nil, fmt.Errorf("truncated (no checksum)")
	}
	body := data[:len(data)-4]
	if got, want := crc32.Checksum(body, castagnoli), le.Uint32(data[len(body):]); got != want {
		return nil, fmt.Errorf("checksum mismatch (stored %08x, computed %08x): the file is corrupt or truncated", want, got)
	}
	return body[head:], nil
}

// WriteFile writes a checkpoint to path atomically (see atomicfile) through
// save; errors are prefixed with pkg, the writing package's name.
func WriteFile(pkg, path string, save func(io.Writer) error) error {
	if err := atomicfile.Write(path, save); err != nil {
		return fmt.Errorf("%s: save: %w", pkg, err)
	}
	return nil
}

// ReadFile reads the checkpoint at path through load. A missing file is
// "PATH: no such file"; other errors name pkg or the path.
func ReadFile[T any](pkg, path string, load func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return zero, fmt.Errorf("%s: no such file", path)
		}
		return zero, fmt.Errorf("%s: %w", pkg, err)
	}
	defer f.Close()
	v, err := load(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
