package catalog

import "github.com/shariah-screen/shariah"

// NewSearchIndexForTest builds the search index alone, for measuring its memory.
func NewSearchIndexForTest(assets []shariah.Asset) any {
	ix := newSearchIndex(assets)
	return &ix
}
