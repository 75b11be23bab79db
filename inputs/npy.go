package inputs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// npyMagic opens every .npy file.
const npyMagic = "\x93NUMPY"

// maxNPYDim bounds one dimension of a .npy array; the data must be
// present for every element anyway, the bound keeps the arithmetic free
// of overflow.
const maxNPYDim = 1 << 40

// npyTypes maps a NumPy type code (kind and item size) to its element
// type.
var npyTypes = map[string]graph.DType{
	"f2": graph.Float16, "f4": graph.Float32, "f8": graph.Float64,
	"i1": graph.Int8, "i2": graph.Int16, "i4": graph.Int32, "i8": graph.Int64,
	"u1": graph.Uint8, "u2": graph.Uint16, "u4": graph.Uint32, "u8": graph.Uint64,
	"b1": graph.Bool,
}

// DecodeNPY decodes a NumPy .npy array (format versions 1 to 3) of a
// boolean, integer or floating-point type, in C or Fortran order and
// either byte order, into a tensor.
func DecodeNPY(data []byte) (*graph.Tensor, error) {
	if len(data) < 10 || string(data[:6]) != npyMagic {
		return nil, errors.New("not a .npy array (no \\x93NUMPY magic)")
	}
	major := data[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(data[8:10])), 10
	case 2, 3:
		if len(data) < 12 {
			return nil, errors.New(".npy header is cut short")
		}
		hlen, start = int(binary.LittleEndian.Uint32(data[8:12])), 12
	default:
		return nil, fmt.Errorf(".npy format version %d.%d is not supported", major, data[7])
	}
	if hlen > len(data)-start {
		return nil, errors.New(".npy header is cut short")
	}
	h, err := parseNPYHeader(string(data[start : start+hlen]))
	if err != nil {
		return nil, fmt.Errorf(".npy header: %w", err)
	}
	return h.tensor(data[start+hlen:])
}

// npyHeader is the dictionary at the head of a .npy file.
type npyHeader struct {
	dtype     graph.DType
	bigEndian bool
	fortran   bool
	shape     []int
}

// parseNPYHeader reads the header dictionary, a Python literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 512), }.
func parseNPYHeader(s string) (npyHeader, error) {
	var h npyHeader
	p := &pyLiteral{s: s}
	d, err := p.dict()
	if err != nil {
		return h, err
	}
	descr, ok := d["descr"].(string)
	if !ok {
		return h, errors.New("no 'descr' string (structured arrays are not supported)")
	}
	if len(descr) != 3 {
		return h, fmt.Errorf("type %q is not supported", descr)
	}
	switch descr[0] {
	case '<', '|', '=':
	case '>':
		h.bigEndian = true
	default:
		return h, fmt.Errorf("type %q has no byte order", descr)
	}
	if h.dtype, ok = npyTypes[descr[1:]]; !ok {
		return h, fmt.Errorf("type %q is not supported (want bool, int, uint or float)", descr)
	}
	if h.fortran, ok = d["fortran_order"].(bool); !ok {
		return h, errors.New("no 'fortran_order' boolean")
	}
	shape, ok := d["shape"].([]int64)
	if !ok {
		return h, errors.New("no 'shape' tuple")
	}
	for _, v := range shape {
		if v < 0 || v > maxNPYDim {
			return h, fmt.Errorf("shape %v has a dimension out of range", shape)
		}
		h.shape = append(h.shape, int(v))
	}
	return h, nil
}

// tensor decodes the array data that follows the header.
func (h npyHeader) tensor(data []byte) (*graph.Tensor, error) {
	size := h.dtype.Size()
	n := 1
	for _, d := range h.shape {
		if d != 0 && n > len(data)/size/d {
			return nil, fmt.Errorf(".npy shape %v needs more data than the %d bytes present", h.shape, len(data))
		}
		n *= d
	}
	if n*size != len(data) {
		return nil, fmt.Errorf(".npy shape %v of %v needs %d bytes, the file holds %d", h.shape, h.dtype, n*size, len(data))
	}
	if h.fortran {
		data = fromFortran(h.shape, data, size)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if h.bigEndian {
		order = binary.BigEndian
	}
	t := graph.NewTensor(h.dtype, h.shape...)
	if err := binary.Read(bytes.NewReader(data), order, t.Data); err != nil {
		return nil, fmt.Errorf(".npy data: %w", err)
	}
	return t, nil
}

// fromFortran returns the elements (of size bytes) of an array of shape
// stored in column-major (Fortran) order, in row-major order: the element
// at coordinates c lies at the sum over the axes of c[ax] times the
// product of the dimensions before ax.
func fromFortran(shape []int, data []byte, size int) []byte {
	out := make([]byte, len(data))
	for i := range len(data) / size {
		f, stride := 0, 1
		for ax := range shape {
			// Row-major: the coordinate on ax is i divided by the product
			// of the dimensions after ax, modulo shape[ax].
			f += (i / graph.NumElements(shape[ax+1:])) % shape[ax] * stride
			stride *= shape[ax]
		}
		copy(out[i*size:(i+1)*size], data[f*size:(f+1)*size])
	}
	return out
}

// pyLiteral parses the subset of Python literals .npy headers use:
// a dict of string keys whose values are strings, True, False or tuples
// of integers.
type pyLiteral struct {
	s   string
	pos int
}

func (p *pyLiteral) space() {
	for p.pos < len(p.s) && strings.ContainsRune(" \t\n\r", rune(p.s[p.pos])) {
		p.pos++
	}
}

// eat consumes c after any space, reporting whether it was there.
func (p *pyLiteral) eat(c byte) bool {
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *pyLiteral) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// dict parses {key: value, ...}.
func (p *pyLiteral) dict() (map[string]any, error) {
	if !p.eat('{') {
		return nil, p.errorf("want '{'")
	}
	out := map[string]any{}
	for !p.eat('}') {
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if !p.eat(':') {
			return nil, p.errorf("want ':' after key %q", k)
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out[k] = v
		if !p.eat(',') {
			if !p.eat('}') {
				return nil, p.errorf("want ',' or '}'")
			}
			break
		}
	}
	return out, nil
}

// value parses a string, True, False or a tuple of integers.
func (p *pyLiteral) value() (any, error) {
	p.space()
	rest := p.s[p.pos:]
	switch {
	case strings.HasPrefix(rest, "True"):
		p.pos += 4
		return true, nil
	case strings.HasPrefix(rest, "False"):
		p.pos += 5
		return false, nil
	case strings.HasPrefix(rest, "("):
		return p.tuple()
	}
	return p.str()
}

// str parses a quoted string without escapes.
func (p *pyLiteral) str() (string, error) {
	p.space()
	if p.pos >= len(p.s) || (p.s[p.pos] != '\'' && p.s[p.pos] != '"') {
		return "", p.errorf("want a quoted string")
	}
	q := p.s[p.pos]
	end := strings.IndexByte(p.s[p.pos+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated string")
	}
	v := p.s[p.pos+1 : p.pos+1+end]
	p.pos += end + 2
	return v, nil
}

// tuple parses (int, int, ...), with an optional trailing comma.
func (p *pyLiteral) tuple() ([]int64, error) {
	p.eat('(')
	out := []int64{}
	for !p.eat(')') {
		p.space()
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		// Python 2 wrote long dimensions as 3L.
		digits := p.s[start:p.pos]
		if p.pos < len(p.s) && p.s[p.pos] == 'L' {
			p.pos++
		}
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return nil, p.errorf("want a dimension")
		}
		out = append(out, v)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, p.errorf("want ',' or ')'")
			}
			break
		}
	}
	return out, nil
}
