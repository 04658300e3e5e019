// Package rulesets holds the screening rulesets as data: one JSON file per ruleset (the spec's table and
// the published editions of each methodology), embedded in the binary. Thresholds live only here: the
// engine, the education endpoints and the MCP server read them from these files.
package rulesets

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"

	shariah "github.com/shariah-screen/shariah"
)

//go:embed *.json
var files embed.FS

// Load parses every embedded ruleset, by name.
func Load() (map[string]*shariah.Ruleset, error) {
	names, err := fs.Glob(files, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make(map[string]*shariah.Ruleset, len(names))
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		rs, err := shariah.ParseRuleset(b)
		if err != nil {
			return nil, fmt.Errorf("ruleset %s: %w", n, err)
		}
		if rs.Name+".json" != n {
			return nil, fmt.Errorf("ruleset %s is named %q", n, rs.Name)
		}
		out[rs.Name] = rs
	}
	if _, ok := out[shariah.DefaultRuleset]; !ok {
		return nil, fmt.Errorf("the default ruleset %q is missing", shariah.DefaultRuleset)
	}
	return out, nil
}
