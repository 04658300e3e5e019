package news

import (
	"crypto/sha256"
	"encoding/hex"
	"html"
	"net/url"
	"sort"
	"strings"
	"unicode"
)

// trackingParams are query parameters that identify a campaign or a click, not the article: they are
// dropped by NormalizeURL (besides every utm_* parameter).
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "dclid": true, "msclkid": true, "yclid": true, "igshid": true,
	"mc_cid": true, "mc_eid": true, "ref": true, "cmpid": true, "_hsenc": true, "_hsmi": true,
	"mkt_tok": true,
}

// NormalizeURL is the form of an article URL used to recognise one article across sources: scheme
// and host lower-cased, http taken as https, "www." and default ports dropped, user information and
// fragment dropped, tracking query parameters (utm_*, fbclid, gclid, mc_cid, mc_eid, ref, cmpid and a
// few other click identifiers) dropped, the remaining parameters sorted, a trailing slash dropped. A
// URL without a scheme ("www.example.com/a") is read as https. Input that is not a URL is returned
// trimmed and lower-cased, without its fragment.
func NormalizeURL(raw string) string {
	s := strings.TrimSpace(raw)
	if s == "" {
		return ""
	}
	if !strings.Contains(s, "://") {
		if strings.HasPrefix(s, "//") {
			s = "https:" + s
		} else if first, _, _ := strings.Cut(s, "/"); strings.Contains(first, ".") && !strings.ContainsAny(first, " :") {
			s = "https://" + s
		}
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		s, _, _ = strings.Cut(s, "#")
		return strings.TrimSuffix(strings.ToLower(s), "/")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme == "http" {
		scheme = "https"
	}
	host := strings.ToLower(u.Hostname())
	host = strings.TrimSuffix(strings.TrimPrefix(host, "www."), ".")
	if port := u.Port(); port != "" && port != "80" && port != "443" {
		host += ":" + port
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	var b strings.Builder
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	b.WriteString(path)
	if q := normalizeQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String()
}

// normalizeQuery drops tracking parameters and empty pairs and sorts the rest by key, then value.
func normalizeQuery(raw string) string {
	if raw == "" {
		return ""
	}
	type kv struct{ k, v string }
	var kept []kv
	for _, pair := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		lk := strings.ToLower(k)
		if k == "" || strings.HasPrefix(lk, "utm_") || trackingParams[lk] {
			continue
		}
		kept = append(kept, kv{k, v})
	}
	sort.Slice(kept, func(i, j int) bool {
		if kept[i].k != kept[j].k {
			return kept[i].k < kept[j].k
		}
		return kept[i].v < kept[j].v
	})
	parts := make([]string, len(kept))
	for i, p := range kept {
		parts[i] = url.QueryEscape(p.k) + "=" + url.QueryEscape(p.v)
	}
	return strings.Join(parts, "&")
}

// NormalizeTitle is the form of a title used to recognise one story across sources: entities decoded,
// lower-cased, apostrophes dropped ("Dunkin'" = "Dunkin"), every other run of characters that are not
// letters or digits replaced by one space, trimmed.
func NormalizeTitle(t string) string {
	t = html.UnescapeString(t)
	var b strings.Builder
	b.Grow(len(t))
	space := false
	for _, r := range t {
		switch {
		case r == '\'' || r == '’' || r == '‘' || r == 'ʼ':
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		default:
			space = true
		}
	}
	return b.String()
}

// ArticleID is the stable identifier of an article: the first 16 hexadecimal characters of the
// SHA-256 of its normalised URL.
func ArticleID(u string) string {
	sum := sha256.Sum256([]byte(NormalizeURL(u)))
	return hex.EncodeToString(sum[:])[:16]
}
