package shariah

// NewSearchIndexForTest builds the search index alone, for measuring its memory.
func NewSearchIndexForTest(assets []Asset) any {
	ix := newSearchIndex(assets)
	return &ix
}

// SymbolShaped is the hand-written symbol check, for comparing it with its regular expression.
var SymbolShaped = symbolShaped
