package graph

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Dim is one dimension of a possibly symbolic shape. A known dimension has
// Value >= 0; a symbolic one has Value < 0 and a non-empty Param ("batch");
// an unknown one has Value < 0 and Param "".
type Dim struct {
	Value int64
	Param string
}

// Known reports whether the dimension has a concrete size.
func (d Dim) Known() bool { return d.Value >= 0 }

// String returns the size, the symbol name, or "?".
func (d Dim) String() string {
	switch {
	case d.Known():
		return strconv.FormatInt(d.Value, 10)
	case d.Param != "":
		return d.Param
	}
	return "?"
}

// Shape is the possibly symbolic shape of a Value.
type Shape []Dim

// StaticShape converts a concrete shape to a Shape.
func StaticShape(dims ...int) Shape {
	s := make(Shape, len(dims))
	for i, d := range dims {
		s[i] = Dim{Value: int64(d)}
	}
	return s
}

// Static reports whether every dimension is known.
func (s Shape) Static() bool {
	for _, d := range s {
		if !d.Known() {
			return false
		}
	}
	return true
}

// Ints returns the dimensions as ints; it panics if s is not static.
func (s Shape) Ints() []int {
	out := make([]int, len(s))
	for i, d := range s {
		if !d.Known() {
			panic(fmt.Sprintf("graph: Shape.Ints on non-static shape %v", s))
		}
		out[i] = int(d.Value)
	}
	return out
}

// Clone returns a copy of s.
func (s Shape) Clone() Shape { return append(Shape(nil), s...) }

// Equal reports whether two shapes have identical dimensions and symbols.
func (s Shape) Equal(o Shape) bool { return slices.Equal(s, o) }

// String formats the shape as "1x3xHx?" ("scalar" for rank 0).
func (s Shape) String() string {
	if len(s) == 0 {
		return "scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, "x")
}

// ParseShape parses "1x3x224x224" into concrete dimensions. An empty string
// or "scalar" is rank 0.
func ParseShape(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "scalar" {
		return nil, nil
	}
	parts := strings.Split(s, "x")
	out := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad dimension %q in shape %q (want non-negative integers joined by 'x', e.g. 1x3x224x224)", p, s)
		}
		out[i] = v
	}
	return out, nil
}
