// Package rules holds the rules as data, embedded in the binary: screening/ has one JSON file per
// screening ruleset (the default "spec" table and the published editions of each methodology; the
// thresholds live only there: the engine, the education endpoints and the MCP server read them from these
// files), sukuk/ one per AAOIFI standard version of the sukuk disposition rules (the pre-Standard 62
// reading and the Standard 62 draft) and grid.json, how each index family's methodology treats a sukuk.
package rules

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"

	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/sukuk"
)

// FS holds every rules file, under screening/ and sukuk/.
//
//go:embed screening/*.json sukuk/*.json
var FS embed.FS

// SukukFS is the sukuk rules folder (sukuk/*.json) as its own file system.
var SukukFS = mustSub("sukuk")

func mustSub(dir string) fs.FS {
	sub, err := fs.Sub(FS, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// Rulesets parses every screening ruleset, by name; each file is named after its ruleset, and the
// default ruleset must be there.
func Rulesets() (map[string]*screening.Ruleset, error) {
	names, err := fs.Glob(FS, "screening/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make(map[string]*screening.Ruleset, len(names))
	for _, n := range names {
		b, err := FS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		rs, err := screening.ParseRuleset(b)
		if err != nil {
			return nil, fmt.Errorf("ruleset %s: %w", n, err)
		}
		if "screening/"+rs.Name+".json" != n {
			return nil, fmt.Errorf("ruleset %s is named %q", n, rs.Name)
		}
		out[rs.Name] = rs
	}
	if _, ok := out[screening.DefaultRuleset]; !ok {
		return nil, fmt.Errorf("the default ruleset %q is missing", screening.DefaultRuleset)
	}
	return out, nil
}

// Sukuk reads and validates the sukuk disposition rules (sukuk.LoadRules).
func Sukuk() (*sukuk.Rules, error) { return sukuk.LoadRules(SukukFS) }
