package shariah

// SymbolShaped is the hand-written symbol check, for comparing it with its regular expression.
var SymbolShaped = symbolShaped
