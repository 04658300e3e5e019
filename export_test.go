package shariah

// NewSearchIndexForTest builds the search index alone, for measuring its memory.
func NewSearchIndexForTest(assets []Asset) any {
	ix := newSearchIndex(assets)
	return &ix
}
