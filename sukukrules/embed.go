// Package sukukrules holds the sukuk disposition rules as data: one JSON file per AAOIFI standard version
// (the pre-Standard 62 reading and the Standard 62 draft) and grid.json, how each index family's
// methodology treats a sukuk. The engine (shariah.LoadSukukRules) reads and validates them at start.
package sukukrules

import (
	"embed"

	shariah "github.com/shariah-screen/shariah"
)

// FS holds every rules file.
//
//go:embed *.json
var FS embed.FS

// Load reads and validates the embedded rules.
func Load() (*shariah.SukukRules, error) { return shariah.LoadSukukRules(FS) }
