package ruleverify

import (
	"fmt"
	"os"
	"strings"

	"github.com/xrl-dev/xrl/rules"
)

// ParseFile reads and parses (and checks) a user's .rules file. A parse
// or check failure is a rules.ErrorList naming file:line:col per problem.
func ParseFile(path string) (*rules.Set, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading rules: %w", err)
	}
	return rules.Parse(path, src)
}

// LoadWith returns the shipped rule set extended by the rules of the
// files at paths (names and duplicates are checked across all of them).
// Every rule from those files is verified with opts; if any fails, the
// set is not returned and the error lists each rejected rule with its
// reason, so only verified rules are ever used. With no paths it is
// rules.Load.
func LoadWith(paths []string, opts Options) (*rules.Set, error) {
	if len(paths) == 0 {
		return rules.Load()
	}
	files, err := rules.EmbeddedFiles()
	if err != nil {
		return nil, err
	}
	user := map[string]bool{}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading rules: %w", err)
		}
		if _, dup := files[p]; dup {
			return nil, fmt.Errorf("rules file %s is given twice", p)
		}
		files[p] = src
		user[p] = true
	}
	set, err := rules.ParseFiles(files)
	if err != nil {
		return nil, err
	}
	var failed []string
	for _, r := range set.Rules {
		if !user[r.Pos.File] {
			continue
		}
		rep, err := Verify(r, opts)
		if err != nil {
			return nil, err
		}
		if !rep.OK {
			failed = append(failed, fmt.Sprintf("%v: rule %s rejected: %v", r.Pos, r.Name, rep.Err))
		}
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%d rule%s failed verification:\n%s", len(failed), plural(len(failed)), strings.Join(failed, "\n"))
	}
	return set, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
