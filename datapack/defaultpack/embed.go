// Package defaultpack is the default universe: a small data pack written by this project (see
// README.md in this directory), embedded so `shariah load --default` works without any files.
package defaultpack

import "embed"

// FS holds the pack's files at its root.
//
//go:embed *.csv README.md
var FS embed.FS
