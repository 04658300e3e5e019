package filings

import (
	"context"
	"time"
)

// Article is a news article, deduplicated across sources and tagged.
type Article struct {
	ID                  string    `json:"id"` // stable: derived from the normalised URL
	Title               string    `json:"title"`
	URL                 string    `json:"url"`
	Summary             string    `json:"summary"`
	Published           time.Time `json:"published_at"`
	Source              string    `json:"source"`  // the first source that carried it
	Sources             []string  `json:"sources"` // every source that carried it (deduplication)
	Category            string    `json:"category"`
	Symbols             []string  `json:"symbols"`
	Sentiment           float64   `json:"sentiment"`            // -1 (bearish) .. 1 (bullish)
	SentimentLabel      string    `json:"sentiment_label"`      // bearish, neutral, bullish
	ComplianceRelevance string    `json:"compliance_relevance"` // high, medium, low
	RelevanceReason     string    `json:"relevance_reason"`
	Illustrative        bool      `json:"illustrative"` // dates or sources not real (demo data)
	// TitleKey is the normalised title: a second article with the same one is the same story.
	TitleKey string `json:"title_key,omitempty"`
}

// NewsQuery filters the news list.
type NewsQuery struct {
	Source, Category, Q, Symbol, Relevance string
	Offset, Limit                          int
}

// NewsStore holds articles.
type NewsStore interface {
	// PutArticles stores articles, merging one that is already stored (same normalised URL or title)
	// into it; it returns how many were new.
	PutArticles(ctx context.Context, as []Article) (int, error)
	News(ctx context.Context, q NewsQuery) ([]Article, int, error)
}
