package rules

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"sync"
)

// Parse parses and checks the rules in src (named filename in messages).
// On failure the error is an ErrorList holding every problem found, sorted
// by position.
func Parse(filename string, src []byte) (*Set, error) {
	return ParseFiles(map[string][]byte{filename: src})
}

// ParseFiles parses several rules files into one set (files in name
// order); rule names and duplicates are checked across all of them.
func ParseFiles(files map[string][]byte) (*Set, error) {
	var errs ErrorList
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	set := &Set{byName: map[string]*Rule{}}
	keys := map[string]*Rule{}
	for _, name := range names {
		for _, rr := range parseFile(name, files[name], &errs) {
			r, ok := compileRule(rr, &errs)
			if prev := set.byName[r.Name]; prev != nil {
				errs.add(r.Pos, "rule %s is already defined at %v", r.Name, prev.Pos)
				continue
			}
			set.byName[r.Name] = r
			set.Rules = append(set.Rules, r)
			if !ok {
				continue
			}
			key, trivial := canonicalKey(r)
			if trivial {
				errs.add(r.Pos, "rule %s: source and target are identical (up to commuting arguments)", r.Name)
			}
			if prev := keys[key]; prev != nil {
				errs.add(r.Pos, "rule %s duplicates rule %s (%v) up to renaming variables and commuting arguments", r.Name, prev.Name, prev.Pos)
			} else {
				keys[key] = r
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return set, nil
}

//go:embed data/*.rules
var embedded embed.FS

var (
	loadOnce sync.Once
	loadSet  *Set
	loadErr  error
)

// Load returns the rule set shipped with xrl (the .rules files embedded in
// the binary), parsed once. The set is shared by all callers and must not
// be modified.
func Load() (*Set, error) {
	loadOnce.Do(func() {
		files, err := EmbeddedFiles()
		if err != nil {
			loadErr = err
			return
		}
		loadSet, loadErr = ParseFiles(files)
	})
	return loadSet, loadErr
}

// EmbeddedFiles returns the shipped .rules files by name.
func EmbeddedFiles() (map[string][]byte, error) {
	entries, err := fs.Glob(embedded, "data/*.rules")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := embedded.ReadFile(e)
		if err != nil {
			return nil, fmt.Errorf("reading embedded %s: %w", e, err)
		}
		files[e] = b
	}
	return files, nil
}
