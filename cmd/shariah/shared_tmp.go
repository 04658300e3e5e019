package main

import (
	"errors"
	"io/fs"

	"github.com/shariah-screen/shariah/datapack"
)

// readShared is wired to the public-format readers once they land.
func readShared(fsys fs.FS) (*datapack.Pack, datapack.Extras, error) {
	return nil, datapack.Extras{}, errors.New("not wired yet")
}
