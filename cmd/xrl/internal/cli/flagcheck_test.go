package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// numericFlag is one numeric flag of one command.
type numericFlag struct {
	path  []string // command words after "xrl"
	name  string
	typ   string
	nargs int // the fewest positional arguments the command accepts
}

// numericFlags walks the command tree and returns every numeric flag.
func numericFlags(t *testing.T) []numericFlag {
	t.Helper()
	var b bytes.Buffer
	root := NewRootCmd(IO{In: strings.NewReader(""), Out: &b, Err: &b})
	var out []numericFlag
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		nargs := 0
		for nargs < 4 && c.ValidateArgs(make([]string, nargs)) != nil {
			nargs++
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !isNumericType(f.Value.Type()) {
				return
			}
			out = append(out, numericFlag{path: path, name: f.Name, typ: f.Value.Type(), nargs: nargs})
		})
		for _, s := range c.Commands() {
			walk(s, append(append([]string(nil), path...), s.Name()))
		}
	}
	walk(root, nil)
	return out
}

// TestNumericFlagsRejectBadValues gives every numeric flag of every
// command NaN, infinities and a negative value and expects a usage error
// naming the flag, before the command touches any file.
func TestNumericFlagsRejectBadValues(t *testing.T) {
	flags := numericFlags(t)
	if len(flags) < 40 {
		t.Fatalf("found only %d numeric flags", len(flags))
	}
	dir := t.TempDir()
	found := map[string]bool{}
	for _, nf := range flags {
		found[nf.name] = true
		bad := []string{"-1", "-3"}
		switch nf.typ {
		case "float32", "float64", "float64Slice", "float32Slice":
			bad = append(bad, "NaN", "nan", "Inf", "-Inf", "+Inf")
		case "duration":
			bad = []string{"-1s"}
		case "uint64", "uint", "uint32":
			bad = []string{"-1"}
		}
		for _, v := range bad {
			args := append(append([]string(nil), nf.path...), "--"+nf.name+"="+v)
			for i := 0; i < nf.nargs; i++ {
				args = append(args, filepath.Join(dir, fmt.Sprintf("arg%d.onnx", i)))
			}
			t.Run(strings.Join(args[:len(nf.path)+1], " "), func(t *testing.T) {
				code, stdout, stderr := run(args...)
				if code != exitUsage {
					t.Errorf("exit %d, want %d (stderr %q)", code, exitUsage, stderr)
				}
				if !strings.Contains(stderr, "--"+nf.name) && !strings.Contains(stderr, "\""+nf.name+"\"") {
					t.Errorf("stderr does not name --%s: %q", nf.name, stderr)
				}
				if strings.Contains(stderr, "goroutine") || stdout != "" {
					t.Errorf("unexpected output: stdout %q stderr %q", stdout, stderr)
				}
				if ents, _ := os.ReadDir(dir); len(ents) > 0 {
					t.Errorf("%s was created", ents[0].Name())
				}
			})
		}
	}
	for _, name := range []string{"tolerance", "alpha", "learning-rate", "threads", "budget"} {
		if !found[name] {
			t.Errorf("flag --%s not found in the command tree", name)
		}
	}
}

// isNumericType reports whether checkNumericFlag checks flags of type typ.
func isNumericType(typ string) bool {
	return checkNumericFlag(&pflag.Flag{Name: "x", Value: fakeValue{typ: typ, s: "NaN"}}) != nil
}

// fakeValue is a pflag.Value of any type printing s.
type fakeValue struct{ typ, s string }

func (v fakeValue) String() string     { return v.s }
func (v fakeValue) Set(string) error   { return nil }
func (v fakeValue) Type() string       { return v.typ }
func (v fakeValue) GetSlice() []string { return []string{v.s} }
func (v fakeValue) Append(string) error {
	return nil
}
func (v fakeValue) Replace([]string) error { return nil }
