// Package news turns news feeds into the domain articles of package shariah and enriches them: it
// parses RSS 1.0/2.0 and Atom documents, normalises URLs and titles for deduplication, tags the
// symbols an article mentions, scores its sentiment with a finance word list and grades its
// compliance relevance (debt, M&A, material events, dividends...). It is pure: bytes and values in,
// values out. Fetching the feeds, recording source health and storing the articles belong to the
// callers.
package news

import (
	"errors"
	"fmt"
	"html"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"

	"github.com/shariah-screen/shariah/filings"
)

// MaxSummary bounds an article summary, in characters (runes).
const MaxSummary = 500

// ParseFeed parses an RSS 1.0/2.0 or Atom document (a JSON Feed is accepted too) into articles of the
// given source. Items without a title or a link are skipped; an item repeated in the document (same
// normalised URL) is kept once. Titles and summaries are plain text: tags stripped, entities decoded,
// white space collapsed; a summary is cut at a word boundary to at most MaxSummary characters.
// Published is the item's published date, else its updated date, in UTC; an item without either gets
// the zero time and the caller decides. Category is the first item category, lower-cased. ID is
// ArticleID of the link and TitleKey NormalizeTitle of the title. The articles are not enriched (see
// Enrich).
//
// A document that is empty, is not a feed or is not well-formed returns an error saying why, for the
// caller to record in the source's health.
func ParseFeed(b []byte, source string) ([]filings.Article, error) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, errors.New("empty feed document")
	}
	if !utf8.Valid(b) {
		b = []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
	}
	feed, err := gofeed.NewParser().ParseString(string(b))
	if err != nil {
		if errors.Is(err, gofeed.ErrFeedTypeNotDetected) {
			return nil, fmt.Errorf("not an RSS or Atom feed: %w", err)
		}
		return nil, fmt.Errorf("malformed feed: %w", err)
	}
	if feed == nil {
		return nil, errors.New("malformed feed: no feed element")
	}
	if feed.FeedType == "json" && feed.FeedVersion == "" {
		return nil, errors.New("not an RSS or Atom feed: JSON without a JSON Feed version")
	}
	out := make([]filings.Article, 0, len(feed.Items))
	seen := map[string]bool{}
	for _, it := range feed.Items {
		if it == nil {
			continue
		}
		title := cleanText(it.Title)
		link := itemLink(it)
		if title == "" || link == "" {
			continue
		}
		id := ArticleID(link)
		if seen[id] {
			continue
		}
		seen[id] = true
		summary := cleanText(it.Description)
		if summary == "" {
			summary = cleanText(it.Content)
		}
		a := filings.Article{
			ID:        id,
			Title:     title,
			URL:       link,
			Summary:   truncateWords(summary, MaxSummary),
			Published: itemTime(it),
			Source:    source,
			Sources:   []string{source},
			Category:  firstCategory(it.Categories),
			TitleKey:  NormalizeTitle(title),
		}
		out = append(out, a)
	}
	return out, nil
}

// itemLink is the item's link, else its first link, else a GUID that is a URL.
func itemLink(it *gofeed.Item) string {
	if l := strings.TrimSpace(it.Link); l != "" {
		return l
	}
	for _, l := range it.Links {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	g := strings.TrimSpace(it.GUID)
	if lg := strings.ToLower(g); strings.HasPrefix(lg, "http://") || strings.HasPrefix(lg, "https://") {
		return g
	}
	return ""
}

func itemTime(it *gofeed.Item) time.Time {
	switch {
	case it.PublishedParsed != nil && !it.PublishedParsed.IsZero():
		return it.PublishedParsed.UTC()
	case it.UpdatedParsed != nil && !it.UpdatedParsed.IsZero():
		return it.UpdatedParsed.UTC()
	}
	return time.Time{}
}

func firstCategory(cs []string) string {
	for _, c := range cs {
		if c = strings.ToLower(cleanText(c)); c != "" {
			return c
		}
	}
	return ""
}

// cleanText turns feed HTML into plain text: tags (and script/style content) removed, entities
// decoded, white space collapsed. Feeds often escape their HTML twice (&amp;lt;p&amp;gt;), so a second
// pass runs when decoding revealed tags.
func cleanText(s string) string {
	for pass := 0; pass < 2; pass++ {
		s = html.UnescapeString(stripTags(s))
		if !strings.Contains(s, "<") {
			break
		}
	}
	return collapseSpace(s)
}

// inlineTags are elements that do not separate words ("<b>App</b>le" is one word); other tags become a
// space.
var inlineTags = map[string]bool{
	"a": true, "abbr": true, "b": true, "bdi": true, "bdo": true, "cite": true, "code": true, "data": true,
	"em": true, "font": true, "i": true, "kbd": true, "mark": true, "q": true, "s": true, "samp": true,
	"small": true, "span": true, "strong": true, "sub": true, "sup": true, "time": true, "u": true,
	"var": true, "wbr": true,
}

// stripTags removes HTML tags, comments, CDATA markers and the content of script and style elements.
// A '<' that does not open a tag ("revenue < $5bn") is kept.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '<' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			end := strings.Index(rest[4:], "-->")
			if end < 0 {
				return b.String()
			}
			i += 4 + end + 3
			b.WriteByte(' ')
			continue
		case strings.HasPrefix(rest, "<![CDATA["):
			i += len("<![CDATA[")
			if end := strings.Index(s[i:], "]]>"); end >= 0 {
				b.WriteString(s[i : i+end])
				i += end + 3
			}
			continue
		}
		n := s[i+1]
		if !(n == '/' || n == '!' || n == '?' || isASCIILetter(n)) {
			b.WriteByte(c)
			i++
			continue
		}
		end := strings.IndexByte(rest, '>')
		if end < 0 { // an unterminated tag: drop the rest
			return b.String()
		}
		name := tagName(rest[1:end])
		i += end + 1
		if name == "script" || name == "style" {
			if close := strings.Index(strings.ToLower(s[i:]), "</"+name); close >= 0 {
				i += close
				if gt := strings.IndexByte(s[i:], '>'); gt >= 0 {
					i += gt + 1
				} else {
					i = len(s)
				}
			}
			b.WriteByte(' ')
			continue
		}
		if !inlineTags[name] {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// tagName is the lower-cased element name of a tag's inside ("/B class=x" -> "b").
func tagName(inside string) string {
	inside = strings.TrimPrefix(inside, "/")
	end := 0
	for end < len(inside) && (isASCIILetter(inside[end]) || inside[end] >= '0' && inside[end] <= '9') {
		end++
	}
	return strings.ToLower(inside[:end])
}

// collapseSpace trims s and replaces every run of white space (including no-break spaces) by one
// space; control and zero-width characters are dropped.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\ufeff' || unicode.IsControl(r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// truncateWords cuts s to at most max runes, at a word boundary, ending with "…" when cut. A first
// word longer than the limit is cut inside.
func truncateWords(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	rs := []rune(s)
	limit := max - 1 // room for the ellipsis
	cut := limit
	for cut > 0 && !unicode.IsSpace(rs[cut]) {
		cut--
	}
	if cut == 0 {
		cut = limit
	}
	out := strings.TrimRightFunc(string(rs[:cut]), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) && r != ')' && r != '"' && r != '\''
	})
	return out + "…"
}
