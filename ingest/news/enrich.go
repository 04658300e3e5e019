package news

import (
	"sort"

	"github.com/shariah-screen/shariah/filings"
)

// Enrich fills the derived fields of an article: TitleKey when empty; Symbols, those the tagger finds
// in title and summary added to any the article already carries (t may be nil to leave them as they
// are); Sentiment and SentimentLabel of title and summary; ComplianceRelevance and RelevanceReason;
// and Category from the relevance group when the feed gave none ("debt", "m&a", "material_event",
// "dividends", "earnings", "guidance", "analyst_rating", "buyback", "management"; "" when low).
func Enrich(a *filings.Article, t *Tagger) {
	if a == nil {
		return
	}
	if t != nil {
		a.Symbols = mergeSymbols(a.Symbols, t.Symbols(a.Title, a.Summary))
	}
	if a.TitleKey == "" {
		a.TitleKey = NormalizeTitle(a.Title)
	}
	text := a.Title
	if a.Summary != "" {
		text += ". " + a.Summary
	}
	a.Sentiment, a.SentimentLabel = Sentiment(text)
	level, reason, category := relevance(a.Title, a.Summary)
	a.ComplianceRelevance, a.RelevanceReason = level, reason
	if a.Category == "" {
		a.Category = category
	}
}

func mergeSymbols(have, found []string) []string {
	if len(found) == 0 {
		return have
	}
	seen := make(map[string]bool, len(have)+len(found))
	out := make([]string, 0, len(have)+len(found))
	for _, s := range append(append([]string{}, have...), found...) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
