package rules

import (
	"fmt"
	"sort"
)

// Pos is a position in a rules file: file name, 1-based line and column.
type Pos struct {
	File string
	Line int
	Col  int
}

// String formats the position as "file:line:col".
func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// less orders positions by file, line and column.
func (p Pos) less(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Error is one problem found in a rules file.
type Error struct {
	Pos Pos
	Msg string
}

// Error formats the problem as "file:line:col: message".
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is every problem found while loading rules, in position order
// once sorted. Parse returns it as its error so callers can list all of
// them; its Error method names the first and counts the rest.
type ErrorList []*Error

// add records a problem at pos.
func (l *ErrorList) add(pos Pos, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Sort orders the list by position (stable for equal positions).
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Pos.less(l[j].Pos) })
}

// Error names the first problem and how many more there are, in the
// style of go/scanner: "x.rules:3:9: unknown op Conv3 (and 2 more errors)".
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	case 2:
		return l[0].Error() + " (and 1 more error)"
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0].Error(), len(l)-1)
}

// Err returns nil for an empty list and the sorted list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}
