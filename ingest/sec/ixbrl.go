package sec

// Inline XBRL (iXBRL): the primary document of a 10-K or 10-Q is XHTML with its XBRL facts tagged in
// place. Reading it directly gives a filing's facts the day it is filed, before companyfacts catches
// up, and the share classes of the cover page that companyfacts drops. The reader below streams the
// document through an HTML tokenizer and keeps only the facts, contexts and units: never the document
// or a DOM, so memory is bounded by the number of facts, not by the size of the filing.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/net/html"

	"github.com/shariah-screen/shariah"
)

// IXFact is one numeric fact of an inline-XBRL document (ix:nonFraction), with its context and unit
// resolved. Text facts are not kept, except the cover-page dei facts summarised in DocumentInfo.
type IXFact struct {
	Concept string          // "us-gaap:Assets", "dei:EntityCommonStockSharesOutstanding"
	Value   decimal.Decimal // scale and sign applied; zero when Nil
	// Unit is named as companyfacts names it: "USD", "shares", "USD/shares", "pure", another
	// currency by its ISO code ("EUR"), else the measure's local name ("segment").
	Unit string
	// Start and End are the context's period as written (YYYY-MM-DD), which is also how companyfacts
	// writes it; Start is "" for an instant, both are "" for a "forever" context.
	Start, End  string
	Dimensional bool        // the context has a segment or scenario with dimensions
	Members     []string    // explicit members of the context ("us-gaap:CommonClassAMember"), sorted; shared, read only
	Dims        []Dimension // all dimensions of the context (explicit and typed), sorted by axis; shared, read only
	Decimals    string      // the decimals attribute as written ("-6", "INF")
	ID          string      // the fact's id attribute
	Context     string      // the context id
	Nil         bool        // xsi:nil="true": reported as nil, no value
}

// Dimension is one axis of a dimensional context and its member: a QName for an explicit member, the
// text of the typed member's value otherwise.
type Dimension struct {
	Axis, Member string
	Typed        bool
}

// DocumentInfo is what the cover page (the dei facts) says about the filing.
type DocumentInfo struct {
	CIK               string // zero-padded to 10 digits, like CIK and the submissions
	DocumentType      string // "10-K", "10-Q", "10-K/A"
	PeriodEndDate     string // YYYY-MM-DD
	FiscalYearFocus   string // "2024"
	FiscalPeriodFocus string // "FY", "Q1".."Q3"
	RegistrantName    string
	AmendmentFlag     string // "true" or "false" (lower-cased)
	// Shares are dei:EntityCommonStockSharesOutstanding, one per class of common stock.
	Shares []ClassShares
	// Cover holds every non-dimensional dei text fact by concept ("dei:TradingSymbol"), whitespace
	// collapsed, booleans as "true"/"false" (see ixCoverText), for callers that need more of the cover.
	Cover map[string]string
}

// ClassShares is the number of shares outstanding of one class of common stock, at AsOf (the date on
// the cover page, near the filing date). Class is the member of us-gaap:StatementClassOfStockAxis
// ("us-gaap:CommonClassAMember"), "" when the filer reports a single, undimensioned value.
type ClassShares struct {
	Class  string
	Shares decimal.Decimal
	AsOf   string
}

// IXDocument is one parsed inline-XBRL document.
type IXDocument struct {
	Name  string // the name it was parsed under (the file name), used in errors and provenance
	Info  DocumentInfo
	Facts []IXFact // numeric facts in document order, duplicates removed
	// Notes record duplicates that disagree beyond rounding (the most precise value was kept).
	Notes []string
}

// FilingRef gives what an inline-XBRL document does not hold about its filing. Accession may be ""
// (the document name then stands for it); Form defaults to the cover page's document type; Filed
// defaults to the date in the document name (FilingDateFromName); Document defaults to the name the
// document was parsed under.
type FilingRef struct {
	Accession, Form, Filed, Document string
}

// Errors of the inline-XBRL reader, to test with errors.Is; the messages name the document and fact.
var (
	// ErrNotInlineXBRL: the document has no ix:header or no ix facts (plain HTML, or an exhibit).
	ErrNotInlineXBRL = errors.New("not an inline XBRL document")
	// ErrTruncated: the document ends inside an element (a partial download).
	ErrTruncated = errors.New("truncated inline XBRL document")
	// ErrNoStatements: the document carries only cover-page facts; its financial statements are filed
	// elsewhere (WFC and IBM file them as an exhibit), so it yields no fundamentals rather than zeros.
	ErrNoStatements = errors.New("no financial statements in the document (cover page only; the statements are in another document of the filing)")
)

// Namespaces by which the element prefixes are found: the prefixes "ix", "xbrli" and "xbrldi" are
// conventional, not required, so the root element's declarations are read too.
const (
	nsIX     = "http://www.xbrl.org/2013/inlineXBRL"
	nsXBRLI  = "http://www.xbrl.org/2003/instance"
	nsXBRLDI = "http://xbrl.org/2006/xbrldi"
)

// tagKind is an element the reader acts on; every other element is skipped without decoding.
type tagKind uint8

const (
	tagOther tagKind = iota
	tagHeader
	tagNonFraction
	tagNonNumeric
	tagExclude
	tagContext
	tagIdentifier
	tagStartDate
	tagEndDate
	tagInstant
	tagForever
	tagExplicitMember
	tagTypedMember
	tagUnit
	tagMeasure
	tagNumerator
	tagDenominator
)

// Limits on text kept while reading: values of numeric facts are short, cover-page text facts are a
// line or two. A numeric value longer than maxValueText is an error (it is not a number); longer dei
// text is cut, since only the short cover facts are used.
const (
	maxValueText = 4096
	maxCoverText = 2048
)

// rawFact is a numeric fact as read, before its context and unit are resolved (they may be defined
// after it in document order). Its value is already parsed: the raw text is not kept.
type rawFact struct {
	concept, context, unit, decimals, id string
	value                                decimal.Decimal
	nil                                  bool
}

// rawText is a text fact as read: its text only for dei facts (the cover page), "" otherwise.
type rawText struct {
	concept, context, id, text string
}

// openFact is an ix fact element not yet closed; facts nest (a cover date inside another, a number
// inside a text block), and the text inside an element belongs to every open fact around it.
type openFact struct {
	numeric  bool
	capture  bool // collect the text (numeric facts, dei text facts)
	concept  string
	context  string
	unit     string
	decimals string
	scale    string
	sign     string
	format   string
	id       string
	nil      bool
	text     []byte
}

// ixContext is an xbrli:context: its period and dimensions.
type ixContext struct {
	id, entity, start, end, instant string
	forever                         bool
	dims                            []Dimension
	members                         []string // explicit members, sorted
	dimKey                          string   // canonical form of dims, for duplicate detection
}

// ixUnit is an xbrli:unit being read: its measures, split into numerator and denominator for divide.
type ixUnit struct {
	id       string
	measures [2][]string // [0] plain or numerator, [1] denominator
}

type ixParser struct {
	name  string
	z     *html.Tokenizer
	kinds map[string]tagKind // lower-case prefixed element names
	// strs interns the strings that repeat across facts (concepts, context and unit ids, decimals).
	strs map[string]string

	sawRoot, sawHeader, sawEnd bool
	header                     int // depth of open ix:header elements
	open                       []openFact
	capturing                  int // open facts with capture set
	exclude                    int // depth of open ix:exclude elements

	facts []rawFact
	texts []rawText

	contexts map[string]*ixContext
	units    map[string]string
	ctx      *ixContext
	unit     *ixUnit
	unitPart int     // 0 outside a divide or in its numerator, 1 in its denominator
	leaf     tagKind // the context/unit element whose text is being collected
	leafText []byte
	dimAxis  string

	raw     []byte // the current start tag as written
	nameBuf []byte
	keyBuf  []byte
}

// ParseInlineXBRL reads an inline-XBRL document (the primary HTML document of a 10-K or 10-Q) from r.
// name identifies the document in errors and provenance (the file name). It returns the document's
// numeric facts with contexts and units resolved, duplicates removed, and its cover-page information.
//
// Errors name the document and, where one is at fault, the fact's concept and id: a document that is
// not inline XBRL (ErrNotInlineXBRL), one that ends inside an element (ErrTruncated), a fact whose
// context or unit is not defined, a value that does not parse under its format, an unknown format.
func ParseInlineXBRL(r io.Reader, name string) (*IXDocument, error) {
	p := &ixParser{
		name: name,
		// The tokenizer reads into its own small buffer; a larger reader buffer saves system calls.
		z:        html.NewTokenizer(bufio.NewReaderSize(r, 64<<10)),
		strs:     map[string]string{},
		contexts: map[string]*ixContext{},
		units:    map[string]string{},
	}
	p.setPrefixes("ix", "xbrli", "xbrldi")
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.resolve()
}

// setPrefixes (re)builds the table of element names for the given prefixes of the iXBRL, XBRL
// instance and XBRL dimensions namespaces. Names are lower case, as the tokenizer reads them.
func (p *ixParser) setPrefixes(ix, xbrli, xbrldi string) {
	if p.kinds == nil {
		p.kinds = map[string]tagKind{}
	}
	for local, k := range map[string]tagKind{"header": tagHeader, "nonfraction": tagNonFraction,
		"nonnumeric": tagNonNumeric, "exclude": tagExclude} {
		p.kinds[strings.ToLower(ix)+":"+local] = k
	}
	for local, k := range map[string]tagKind{"context": tagContext, "identifier": tagIdentifier,
		"startdate": tagStartDate, "enddate": tagEndDate, "instant": tagInstant, "forever": tagForever,
		"unit": tagUnit, "measure": tagMeasure, "unitnumerator": tagNumerator, "unitdenominator": tagDenominator} {
		p.kinds[strings.ToLower(xbrli)+":"+local] = k
	}
	p.kinds[strings.ToLower(xbrldi)+":explicitmember"] = tagExplicitMember
	p.kinds[strings.ToLower(xbrldi)+":typedmember"] = tagTypedMember
}

func (p *ixParser) intern(b []byte) string {
	if s, ok := p.strs[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	p.strs[s] = s
	return s
}

func (p *ixParser) errorf(format string, args ...any) error {
	return fmt.Errorf("inline XBRL %s: "+format, append([]any{p.name}, args...)...)
}

// factErr names the document and the fact in an error.
func (p *ixParser) factErr(concept, id, format string, args ...any) error {
	return fmt.Errorf("inline XBRL %s: fact %s (id %q): "+format, append([]any{p.name, concept, id}, args...)...)
}

// run tokenizes the document. Tags without a prefix (the HTML) are recognised from the raw bytes and
// skipped without decoding, which is most of the document; text is decoded only inside a fact or a
// context/unit element whose text is wanted.
func (p *ixParser) run() error {
	z := p.z
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return p.errorf("read: %w", err)
			}
			return p.atEOF()
		case html.TextToken:
			if p.leaf != tagOther {
				p.leafText = append(p.leafText, z.Text()...)
			} else if p.capturing > 0 && p.exclude == 0 {
				p.addText(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			raw := z.Raw()
			name := ixTagName(raw[1:])
			if bytes.IndexByte(name, ':') < 0 {
				if tt == html.SelfClosingTagToken && ixRawTextTag(name) {
					// "<title/>" is complete in XHTML; the HTML tokenizer would read the rest of the
					// document as the title's text.
					z.NextIsNotRawText()
				}
				if !p.sawRoot && bytes.EqualFold(name, []byte("html")) {
					p.sawRoot, p.raw = true, raw
					p.root()
				}
				continue
			}
			kind := p.kind(name)
			if kind == tagOther {
				continue
			}
			p.raw = raw
			if err := p.start(kind); err != nil {
				return err
			}
			if tt == html.SelfClosingTagToken {
				if err := p.end(kind); err != nil {
					return err
				}
			}
		case html.EndTagToken:
			raw := z.Raw()
			if len(raw) < 3 {
				continue
			}
			name := ixTagName(raw[2:])
			if bytes.IndexByte(name, ':') < 0 {
				if bytes.EqualFold(name, []byte("html")) {
					p.sawEnd = true
				}
				continue
			}
			if kind := p.kind(name); kind != tagOther {
				if err := p.end(kind); err != nil {
					return err
				}
			}
		}
	}
}

// ixTagName is the element name at the start of a raw tag (after "<" or "</").
func ixTagName(b []byte) []byte {
	for i, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r', '\f', '/', '>':
			return b[:i]
		}
	}
	return b
}

// kind looks an element name up in the table, lower-casing it in a reused buffer; the conversion in
// the map index does not allocate.
func (p *ixParser) kind(name []byte) tagKind {
	p.nameBuf = p.nameBuf[:0]
	for _, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		p.nameBuf = append(p.nameBuf, c)
	}
	return p.kinds[string(p.nameBuf)]
}

func ixRawTextTag(name []byte) bool {
	for _, t := range []string{"title", "script", "style", "textarea", "iframe", "noembed", "noframes", "noscript", "xmp", "plaintext"} {
		if bytes.EqualFold(name, []byte(t)) {
			return true
		}
	}
	return false
}

// root reads the namespace declarations of the html element for the iXBRL prefixes.
func (p *ixParser) root() {
	ix, xbrli, xbrldi := "", "", ""
	p.attrs(func(k, v []byte) {
		pre, ok := bytes.CutPrefix(k, []byte("xmlns:"))
		if !ok {
			return
		}
		switch string(v) {
		case nsIX:
			ix = string(pre)
		case nsXBRLI:
			xbrli = string(pre)
		case nsXBRLDI:
			xbrldi = string(pre)
		}
	})
	if ix != "" || xbrli != "" || xbrldi != "" {
		p.setPrefixes(ixOr(ix, "ix"), ixOr(xbrli, "xbrli"), ixOr(xbrldi, "xbrldi"))
	}
}

func ixOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// attrs calls f with each attribute of the current start tag, read from its raw bytes: the key lower
// case, the value unescaped when it holds a character reference. Both slices are only valid during
// the call. (The tokenizer's TagAttr would copy every key and value.)
func (p *ixParser) attrs(f func(k, v []byte)) {
	b := p.raw
	i := 1 // after "<"
	for i < len(b) && !ixSpace(b[i]) && b[i] != '>' && b[i] != '/' {
		i++ // the element name
	}
	for i < len(b) {
		c := b[i]
		if ixSpace(c) || c == '/' {
			i++
			continue
		}
		if c == '>' {
			return
		}
		ks := i
		for i < len(b) && !ixSpace(b[i]) && b[i] != '=' && b[i] != '>' && b[i] != '/' {
			i++
		}
		key := b[ks:i]
		for i < len(b) && ixSpace(b[i]) {
			i++
		}
		var val []byte
		if i < len(b) && b[i] == '=' {
			i++
			for i < len(b) && ixSpace(b[i]) {
				i++
			}
			if i < len(b) && (b[i] == '"' || b[i] == '\'') {
				q := b[i]
				i++
				vs := i
				for i < len(b) && b[i] != q {
					i++
				}
				val = b[vs:i]
				i++ // the closing quote
			} else {
				vs := i
				for i < len(b) && !ixSpace(b[i]) && b[i] != '>' {
					i++
				}
				val = b[vs:i]
			}
		}
		if bytes.IndexByte(val, '&') >= 0 {
			val = []byte(html.UnescapeString(string(val)))
		}
		p.keyBuf = p.keyBuf[:0]
		for _, c := range key {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			p.keyBuf = append(p.keyBuf, c)
		}
		f(p.keyBuf, val)
	}
}

func ixSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func (p *ixParser) start(kind tagKind) error {
	switch kind {
	case tagHeader:
		p.sawHeader = true
		p.header++
	case tagNonFraction, tagNonNumeric:
		return p.openFactTag(kind == tagNonFraction)
	case tagExclude:
		p.exclude++
	case tagContext:
		p.ctx = &ixContext{}
		p.attrs(func(k, v []byte) {
			if string(k) == "id" {
				p.ctx.id = string(v)
			}
		})
	case tagIdentifier, tagStartDate, tagEndDate, tagInstant, tagMeasure:
		p.leaf, p.leafText = kind, p.leafText[:0]
	case tagForever:
		if p.ctx != nil {
			p.ctx.forever = true
		}
	case tagExplicitMember, tagTypedMember:
		p.dimAxis = ""
		p.attrs(func(k, v []byte) {
			if string(k) == "dimension" {
				p.dimAxis = p.intern(v)
			}
		})
		// A typed member's value is the text of the element inside it.
		p.leaf, p.leafText = kind, p.leafText[:0]
	case tagUnit:
		p.unit = &ixUnit{}
		p.attrs(func(k, v []byte) {
			if string(k) == "id" {
				p.unit.id = string(v)
			}
		})
		p.unitPart = 0
	case tagNumerator:
		p.unitPart = 0
	case tagDenominator:
		p.unitPart = 1
	}
	return nil
}

// openFactTag opens an ix:nonFraction (numeric) or ix:nonNumeric element: its attributes, and the
// capture of its text when it is numeric or a cover-page (dei) fact.
func (p *ixParser) openFactTag(numeric bool) error {
	f := openFact{numeric: numeric}
	p.attrs(func(k, v []byte) {
		switch string(k) {
		case "name":
			f.concept = p.intern(v)
		case "contextref":
			f.context = p.intern(v)
		case "unitref":
			f.unit = p.intern(v)
		case "decimals":
			f.decimals = p.intern(v)
		case "scale":
			f.scale = p.intern(v)
		case "sign":
			f.sign = p.intern(v)
		case "format":
			f.format = p.intern(v)
		case "id":
			f.id = string(v)
		default:
			if bytes.HasSuffix(k, []byte(":nil")) {
				f.nil = string(bytes.TrimSpace(v)) == "true"
			}
		}
	})
	f.capture = f.numeric || strings.HasPrefix(f.concept, "dei:")
	if f.concept == "" {
		return p.factErr("(no name)", f.id, "ix fact without a name attribute")
	}
	// Reuse the text buffer of the stack slot left by an earlier fact at this depth.
	if n := len(p.open); n < cap(p.open) {
		f.text = p.open[:n+1][n].text[:0]
	}
	p.open = append(p.open, f)
	if f.capture {
		p.capturing++
	}
	return nil
}

func (p *ixParser) end(kind tagKind) error {
	switch kind {
	case tagHeader:
		p.header--
	case tagNonFraction, tagNonNumeric:
		n := len(p.open)
		if n == 0 || p.open[n-1].numeric != (kind == tagNonFraction) {
			return p.errorf("unbalanced end of an ix fact element")
		}
		f := &p.open[n-1]
		p.open = p.open[:n-1]
		if f.capture {
			p.capturing--
		}
		return p.closeFact(f)
	case tagExclude:
		if p.exclude > 0 {
			p.exclude--
		}
	case tagIdentifier, tagStartDate, tagEndDate, tagInstant, tagExplicitMember, tagTypedMember, tagMeasure:
		p.endLeaf(kind)
	case tagContext:
		p.closeContext()
	case tagUnit:
		if u := p.unit; u != nil {
			p.units[u.id] = ixUnitName(u.measures)
			p.unit = nil
		}
	case tagDenominator:
		p.unitPart = 0
	}
	return nil
}

// endLeaf stores the text of a context's or unit's leaf element (identifier, dates, members, measure).
func (p *ixParser) endLeaf(kind tagKind) {
	if p.leaf != kind {
		return
	}
	p.leaf = tagOther
	text := string(bytes.TrimSpace(p.leafText))
	if kind == tagMeasure {
		if p.unit != nil {
			p.unit.measures[p.unitPart] = append(p.unit.measures[p.unitPart], text)
		}
		return
	}
	if p.ctx == nil {
		return
	}
	switch kind {
	case tagIdentifier:
		p.ctx.entity = text
	case tagStartDate:
		p.ctx.start = text
	case tagEndDate:
		p.ctx.end = text
	case tagInstant:
		p.ctx.instant = text
	case tagExplicitMember:
		p.ctx.dims = append(p.ctx.dims, Dimension{Axis: p.dimAxis, Member: p.intern([]byte(text))})
	case tagTypedMember:
		p.ctx.dims = append(p.ctx.dims, Dimension{Axis: p.dimAxis, Member: text, Typed: true})
	}
}

// closeContext files the context being read under its id, with its dimensions in axis order as a key
// (explicit "axis=member;", typed "axis~value;") and its explicit members sorted.
func (p *ixParser) closeContext() {
	c := p.ctx
	if c == nil {
		return
	}
	sort.Slice(c.dims, func(i, j int) bool { return c.dims[i].Axis < c.dims[j].Axis })
	var b strings.Builder
	for _, d := range c.dims {
		b.WriteString(d.Axis)
		if d.Typed {
			b.WriteString("~")
		} else {
			b.WriteString("=")
		}
		b.WriteString(d.Member)
		b.WriteString(";")
	}
	c.dimKey = b.String()
	for _, d := range c.dims {
		if !d.Typed {
			c.members = append(c.members, d.Member)
		}
	}
	sort.Strings(c.members)
	p.contexts[c.id] = c
	p.ctx = nil
}

// addText appends text to every open fact that collects it.
func (p *ixParser) addText(t []byte) {
	for i := range p.open {
		f := &p.open[i]
		if !f.capture {
			continue
		}
		room := maxValueText + 1 - len(f.text) // one byte over the limit marks an overflow
		if room <= 0 {
			continue
		}
		if len(t) > room {
			f.text = append(f.text, t[:room]...)
		} else {
			f.text = append(f.text, t...)
		}
	}
}

// closeFact parses a numeric fact's value, or keeps a text fact (its text only for dei facts).
func (p *ixParser) closeFact(f *openFact) error {
	if !f.numeric {
		t := rawText{concept: f.concept, context: f.context, id: f.id}
		if f.capture {
			t.text = ixCoverText(f.format, ixCollapseSpace(f.text, maxCoverText))
		}
		p.texts = append(p.texts, t)
		return nil
	}
	if f.unit == "" {
		return p.factErr(f.concept, f.id, "numeric fact without a unitRef")
	}
	r := rawFact{concept: f.concept, context: f.context, unit: f.unit, decimals: f.decimals, id: f.id, nil: f.nil}
	if !f.nil {
		if len(f.text) > maxValueText {
			return p.factErr(f.concept, f.id, "value of more than %d bytes is not a number", maxValueText)
		}
		text := ixCollapseSpace(f.text, maxValueText)
		v, err := ixNumber(f.format, text)
		if err != nil {
			return p.factErr(f.concept, f.id, "value %q: %v", text, err)
		}
		if f.scale != "" {
			s, err := strconv.Atoi(strings.TrimSpace(f.scale))
			if err != nil || s < -100 || s > 100 {
				return p.factErr(f.concept, f.id, "scale %q is not a small integer", f.scale)
			}
			v = v.Shift(int32(s))
		}
		switch strings.TrimSpace(f.sign) {
		case "":
		case "-":
			v = v.Neg()
		default:
			return p.factErr(f.concept, f.id, "sign %q: want \"-\"", f.sign)
		}
		r.value = v
	}
	p.facts = append(p.facts, r)
	return nil
}

// atEOF checks that the document is inline XBRL and complete.
func (p *ixParser) atEOF() error {
	if !p.sawHeader || len(p.facts)+len(p.texts) == 0 {
		if n := len(p.open); n > 0 {
			return p.errorf("%w: ends inside fact %s (id %q)", ErrTruncated, p.open[n-1].concept, p.open[n-1].id)
		}
		if !p.sawEnd && (p.sawHeader || len(p.facts)+len(p.texts) > 0) {
			// Facts without their header (or a header without facts) and no </html>: a partial
			// download of an inline-XBRL document, not a plain page.
			return p.errorf("%w: ends before </html>, with facts but no complete ix:header", ErrTruncated)
		}
		return p.errorf("%w (no ix:header or no ix facts)", ErrNotInlineXBRL)
	}
	switch {
	case len(p.open) > 0:
		f := p.open[len(p.open)-1]
		return p.errorf("%w: ends inside fact %s (id %q)", ErrTruncated, f.concept, f.id)
	case p.header > 0:
		return p.errorf("%w: ends inside ix:header", ErrTruncated)
	case p.ctx != nil:
		return p.errorf("%w: ends inside context %q", ErrTruncated, p.ctx.id)
	case p.unit != nil:
		return p.errorf("%w: ends inside unit %q", ErrTruncated, p.unit.id)
	case !p.sawEnd:
		return p.errorf("%w: ends before </html>", ErrTruncated)
	}
	return nil
}

// ixFactKey identifies a fact for duplicate removal: iXBRL repeats facts (a total in the statement and
// in a note), under the same or an equivalent context.
type ixFactKey struct {
	concept, unit, start, end, dims string
}

// resolve attaches contexts and units to the facts, removes duplicates and reads the cover page.
func (p *ixParser) resolve() (*IXDocument, error) {
	d := &IXDocument{Name: p.name, Facts: make([]IXFact, 0, len(p.facts))}
	seen := make(map[ixFactKey]int, len(p.facts))
	for _, r := range p.facts {
		c, ok := p.contexts[r.context]
		if !ok {
			return nil, p.factErr(r.concept, r.id, "context %q is not defined", r.context)
		}
		unit, ok := p.units[r.unit]
		if !ok {
			return nil, p.factErr(r.concept, r.id, "unit %q is not defined", r.unit)
		}
		f := IXFact{Concept: r.concept, Value: r.value, Unit: unit, Decimals: r.decimals, ID: r.id,
			Context: r.context, Nil: r.nil, Dimensional: len(c.dims) > 0, Dims: c.dims, Members: c.members}
		f.Start, f.End = c.period()
		k := ixFactKey{f.Concept, f.Unit, f.Start, f.End, c.dimKey}
		i, dup := seen[k]
		if !dup {
			seen[k] = len(d.Facts)
			d.Facts = append(d.Facts, f)
			continue
		}
		prev := &d.Facts[i]
		if prev.Nil == f.Nil && prev.Value.Equal(f.Value) {
			if ixPrecision(f.Decimals) > ixPrecision(prev.Decimals) {
				prev.Decimals = f.Decimals
			}
			continue
		}
		keep, other := *prev, f
		if ixPrecision(f.Decimals) > ixPrecision(prev.Decimals) {
			keep, other = f, *prev
		}
		if !ixConsistent(keep, other) {
			d.Notes = append(d.Notes, fmt.Sprintf("%s %s..%s %s: duplicate facts disagree: %s (id %s, decimals %s) kept, %s (id %s, decimals %s) dropped",
				f.Concept, f.Start, f.End, c.dimKey, keep.Value, keep.ID, keep.Decimals, other.Value, other.ID, other.Decimals))
		}
		*prev = keep
	}
	for _, t := range p.texts {
		if _, ok := p.contexts[t.context]; !ok {
			return nil, p.factErr(t.concept, t.id, "context %q is not defined", t.context)
		}
	}
	p.cover(d)
	return d, nil
}

// period is the context's period as (start, end): ("", instant) for an instant.
func (c *ixContext) period() (string, string) {
	if c.forever {
		return "", ""
	}
	if c.instant != "" {
		return "", ixDateOnly(c.instant)
	}
	return ixDateOnly(c.start), ixDateOnly(c.end)
}

// ixDateOnly drops a time of day ("2024-09-28T00:00:00"): companyfacts and the mapping use dates.
func ixDateOnly(s string) string {
	if len(s) > 10 && s[10] == 'T' {
		return s[:10]
	}
	return s
}

// ixPrecision orders decimals attributes: INF (exact) above any number, absent below all.
func ixPrecision(dec string) int {
	dec = strings.TrimSpace(dec)
	if dec == "INF" {
		return math.MaxInt32
	}
	n, err := strconv.Atoi(dec)
	if err != nil {
		return math.MinInt32
	}
	return n
}

// ixConsistent reports duplicates that agree once the more precise is rounded to the other's decimals
// (364,980 millions and 364,980,000,000), which iXBRL allows.
func ixConsistent(precise, rough IXFact) bool {
	if precise.Nil || rough.Nil {
		return false
	}
	p := ixPrecision(rough.Decimals)
	if p == math.MinInt32 || p == math.MaxInt32 || p < -30 || p > 30 {
		return precise.Value.Equal(rough.Value)
	}
	return precise.Value.Round(int32(p)).Equal(rough.Value.Round(int32(p)))
}

// ixUnitName names a unit as companyfacts does: "USD", "shares", "pure", "USD/shares".
func ixUnitName(m [2][]string) string {
	part := func(ms []string) string {
		names := make([]string, len(ms))
		for i, q := range ms {
			_, local, ok := strings.Cut(q, ":")
			if !ok {
				local = q
			}
			names[i] = local
		}
		return strings.Join(names, "*")
	}
	if len(m[1]) == 0 {
		return part(m[0])
	}
	return part(m[0]) + "/" + part(m[1])
}

// cover fills the document information from the dei facts: non-dimensional values first (a filing
// with co-registrants repeats the cover facts per legal entity).
func (p *ixParser) cover(d *IXDocument) {
	info := &d.Info
	info.Cover = map[string]string{}
	byConcept := map[string]rawText{}
	for _, t := range p.texts {
		if !strings.HasPrefix(t.concept, "dei:") {
			continue
		}
		dimensional := len(p.contexts[t.context].dims) > 0
		if prev, ok := byConcept[t.concept]; ok && (dimensional || len(p.contexts[prev.context].dims) == 0) {
			continue
		}
		byConcept[t.concept] = t
		if !dimensional {
			info.Cover[t.concept] = t.text
		}
	}
	get := func(concept string) string { return byConcept[concept].text }
	if cik, err := PadCIK(get("dei:EntityCentralIndexKey")); err == nil {
		info.CIK = cik
	} else if t, ok := byConcept["dei:DocumentType"]; ok {
		// The entity identifier of the contexts is the CIK too (scheme http://www.sec.gov/CIK).
		if cik, err := PadCIK(p.contexts[t.context].entity); err == nil {
			info.CIK = cik
		}
	}
	info.DocumentType = get("dei:DocumentType")
	info.FiscalYearFocus = get("dei:DocumentFiscalYearFocus")
	info.FiscalPeriodFocus = get("dei:DocumentFiscalPeriodFocus")
	info.RegistrantName = get("dei:EntityRegistrantName")
	// Filers write the boolean in any case ("false", "FALSE", "False").
	info.AmendmentFlag = strings.ToLower(get("dei:AmendmentFlag"))
	if t, ok := byConcept["dei:DocumentPeriodEndDate"]; ok {
		if date, ok := ixCoverDate(t.text); ok {
			info.PeriodEndDate = date
		} else {
			// "Sept. 28, 2024" and other spellings: the fact's context ends on the period end.
			_, info.PeriodEndDate = p.contexts[t.context].period()
		}
	}
	for _, f := range d.Facts {
		if f.Concept != SharesTag || f.Nil || f.Unit != "shares" || f.End == "" {
			continue
		}
		class, ok := ixShareClass(f)
		if !ok {
			continue
		}
		info.Shares = append(info.Shares, ClassShares{Class: class, Shares: f.Value, AsOf: f.End})
	}
}

// ixShareClass is the share class of a cover-page shares fact: "" without dimensions, the member of
// StatementClassOfStockAxis when that is the only dimension; other dimensions (a co-registrant's
// LegalEntityAxis) are not the registrant's own classes.
func ixShareClass(f IXFact) (string, bool) {
	switch {
	case len(f.Dims) == 0:
		return "", true
	case len(f.Dims) == 1 && !f.Dims[0].Typed && strings.HasSuffix(f.Dims[0].Axis, ":StatementClassOfStockAxis"):
		return f.Dims[0].Member, true
	}
	return "", false
}

// ixCollapseSpace trims text and collapses runs of white space (including no-break spaces, which
// filings use between a month and a day) to one space, keeping at most limit bytes.
func ixCollapseSpace(b []byte, limit int) string {
	var out strings.Builder
	space := false
	for i := 0; i < len(b) && out.Len() < limit; {
		c := b[i]
		n := 1
		ixSpace := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
		if c == 0xC2 && i+1 < len(b) && b[i+1] == 0xA0 { // U+00A0 no-break space
			ixSpace, n = true, 2
		}
		if ixSpace {
			space = true
		} else {
			if space && out.Len() > 0 {
				out.WriteByte(' ')
			}
			space = false
			out.WriteByte(c)
		}
		i += n
	}
	return out.String()
}

// ixCoverText applies the boolean formats of cover-page facts, whose displayed text says nothing by
// itself: the check box "☒" tagged ixt:fixed-false is the box next to "No" (NVIDIA's shell-company
// flag). Other formats (dates, durations, state names) are kept as displayed.
func ixCoverText(format, text string) string {
	local := format[strings.LastIndexByte(format, ':')+1:]
	switch local {
	case "fixed-true":
		return "true"
	case "fixed-false":
		return "false"
	case "boolballotbox":
		switch text {
		case "☒", "☑", "✓", "✔", "X", "x":
			return "true"
		case "☐":
			return "false"
		}
	}
	return text
}

// ixCoverDateLayouts are the spellings of dates on cover pages (ixt:date-monthname-day-year-en and
// friends); Go matches month names without regard to case.
var ixCoverDateLayouts = []string{"2006-01-02", "January 2, 2006", "January 2 2006", "Jan 2, 2006", "Jan 2 2006",
	"Jan. 2, 2006", "2 January 2006", "2 January, 2006", "01/02/2006", "1/2/2006", "01-02-2006"}

// ixCoverDate normalises a cover-page date to YYYY-MM-DD.
func ixCoverDate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, l := range ixCoverDateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.Format(dateLayout), true
		}
	}
	return "", false
}

// ---------------------------------------------------------------------------------------------------
// value formats (the inline XBRL transformation registries: ixt, and the SEC's ixt-sec)

// ixNumber parses the text of a numeric fact under its format, exactly (never through a float). The
// format's prefix is ignored: registries 1 to 5 and the SEC registry spell the same transformations
// under different namespaces, and no two use one local name for different things.
func ixNumber(format, text string) (decimal.Decimal, error) {
	local := format
	if i := strings.LastIndexByte(format, ':'); i >= 0 {
		local = format[i+1:]
	}
	switch local {
	case "":
		return ixPlainNumber(text)
	case "num-dot-decimal", "numdotdecimal", "numcommadot", "numspacedot":
		return ixGroupedNumber(text, '.')
	case "num-comma-decimal", "numcommadecimal", "numdotcomma", "numspacecomma":
		return ixGroupedNumber(text, ',')
	case "fixed-zero":
		// The content is typically a dash; the transformation ignores it.
		return decimal.Zero, nil
	case "zerodash", "numdash":
		if !ixDashes(text) {
			return decimal.Decimal{}, errors.New("format " + format + ": want a dash")
		}
		return decimal.Zero, nil
	case "numwordsen":
		return ixWordsNumber(text)
	case "num-unit-decimal", "numunitdecimal":
		return ixUnitDecimal(text)
	}
	return decimal.Decimal{}, fmt.Errorf("unknown format %q for a numeric fact", format)
}

func ixDigit(c byte) bool { return '0' <= c && c <= '9' }

// ixPlainNumber parses an unformatted value: digits with an optional decimal point (xs:decimal without
// a sign; the sign attribute carries it).
func ixPlainNumber(s string) (decimal.Decimal, error) {
	if s == "" {
		return decimal.Decimal{}, errors.New("empty value")
	}
	dot := false
	for i := 0; i < len(s); i++ {
		if s[i] == '.' && !dot {
			dot = true
			continue
		}
		if !ixDigit(s[i]) {
			return decimal.Decimal{}, errors.New("not a number (no format)")
		}
	}
	if s == "." {
		return decimal.Decimal{}, errors.New("not a number")
	}
	return decimal.NewFromString(ixLeadingZero(s))
}

func ixLeadingZero(s string) string {
	if strings.HasPrefix(s, ".") {
		return "0" + s
	}
	return s
}

// ixGroupedNumber parses digits grouped by separators (",", " " or "'" for a dot decimal mark; ".",
// " " for a comma decimal mark) with an optional fraction after the decimal mark.
func ixGroupedNumber(s string, mark byte) (decimal.Decimal, error) {
	var buf [64]byte
	out := buf[:0]
	seenMark, lastSep := false, false
	before, after := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case ixDigit(c):
			out = append(out, c)
			if seenMark {
				after++
			} else {
				before++
			}
			lastSep = false
		case c == mark && !seenMark && !lastSep:
			seenMark = true
			out = append(out, '.')
		case !seenMark && before > 0 && !lastSep && (c == ' ' || (mark == '.' && (c == ',' || c == '\'')) || (mark == ',' && c == '.')):
			lastSep = true
		default:
			return decimal.Decimal{}, fmt.Errorf("not a number with %q as decimal mark", mark)
		}
	}
	if before+after == 0 || lastSep || (seenMark && after == 0) {
		return decimal.Decimal{}, fmt.Errorf("not a number with %q as decimal mark", mark)
	}
	return decimal.NewFromString(ixLeadingZero(string(out)))
}

// ixDashes reports a zero written as dashes: hyphen, en dash, em dash, minus sign, figure dash.
func ixDashes(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for _, r := range s {
		switch r {
		case '-', '–', '—', '−', '‒', '―':
		default:
			return false
		}
	}
	return true
}

var (
	ixSmallNumbers = map[string]int64{"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
		"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
		"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
		"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
	ixScaleWords = map[string]int64{"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
)

// ixWordsNumber parses a whole number in English words (ixt-sec:numwordsen): "no" and "none" are zero,
// "twenty-five", "one hundred and five", "two thousand three hundred".
func ixWordsNumber(s string) (decimal.Decimal, error) {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == ' ' || r == '-' || r == ',' || r == '\t' || r == '\n' || r == '\r'
	})
	if len(words) == 1 && (words[0] == "no" || words[0] == "none") {
		return decimal.Zero, nil
	}
	if len(words) == 0 {
		return decimal.Decimal{}, errors.New("no number words")
	}
	var total, cur int64
	numbers := 0
	for _, w := range words {
		switch v, ok := ixSmallNumbers[w]; {
		case w == "and":
		case ok:
			cur += v
			numbers++
		case w == "hundred":
			if cur == 0 {
				cur = 1
			}
			cur *= 100
			numbers++
		default:
			m, ok := ixScaleWords[w]
			if !ok {
				return decimal.Decimal{}, fmt.Errorf("%q is not a number word", w)
			}
			if cur == 0 {
				cur = 1
			}
			total += cur * m
			cur = 0
			numbers++
		}
	}
	if numbers == 0 {
		return decimal.Decimal{}, errors.New("no number words")
	}
	return decimal.NewFromInt(total + cur), nil
}

// ixUnitDecimal parses a number written with major and minor units (ixt:num-unit-decimal): "5 dollars
// 20 cents" is 5.20, "1 pound 5 pence" 1.05, "12 dollars" 12.
func ixUnitDecimal(s string) (decimal.Decimal, error) {
	bad := errors.New("not a number with units (num-unit-decimal)")
	i := 0
	var whole []byte
	for i < len(s) && (ixDigit(s[i]) || (len(whole) > 0 && (s[i] == ',' || s[i] == '.') && i+1 < len(s) && ixDigit(s[i+1]))) {
		if ixDigit(s[i]) {
			whole = append(whole, s[i])
		}
		i++
	}
	if len(whole) == 0 || i == len(s) || ixDigit(s[i]) {
		return decimal.Decimal{}, bad
	}
	for i < len(s) && !ixDigit(s[i]) {
		i++
	}
	j := i
	for i < len(s) && ixDigit(s[i]) {
		i++
	}
	frac := s[j:i]
	if len(frac) > 2 || strings.IndexFunc(s[i:], func(r rune) bool { return r >= '0' && r <= '9' }) >= 0 {
		return decimal.Decimal{}, bad
	}
	if len(frac) == 1 {
		frac = "0" + frac
	}
	if frac == "" {
		return decimal.NewFromString(string(whole))
	}
	return decimal.NewFromString(string(whole) + "." + frac)
}

// ---------------------------------------------------------------------------------------------------
// to the companyfacts structure

// HasStatements reports whether the document holds financial statements: a non-dimensional total
// assets, total liabilities and equity, revenue or net income. Some filers (WFC, IBM) put their
// statements in an exhibit; their primary document tags only the cover page and a few notes, and
// must yield no fundamentals rather than zeros.
func (d *IXDocument) HasStatements() bool {
	anchors := map[string]bool{"us-gaap:Assets": true, "us-gaap:LiabilitiesAndStockholdersEquity": true,
		"us-gaap:NetIncomeLoss": true, "ifrs-full:Assets": true}
	for _, t := range revenueTags {
		anchors["us-gaap:"+t] = true
	}
	for _, f := range d.Facts {
		if !f.Dimensional && !f.Nil && anchors[f.Concept] {
			return true
		}
	}
	return false
}

// CompanyFacts converts the document's non-dimensional numeric facts, and its per-class cover-page
// shares (with Fact.Class set), into the companyfacts structure, so the one mapping (Fundamentals)
// serves both readers. Every fact carries the filing's provenance: Accn is ref.Accession, or the
// document name when the accession is not known (Fundamentals needs one per filing); Doc is always
// the document name; FY and FP come from the cover page; Form and Filed from ref, defaulting to the
// cover's document type and the date in the document name. Facts without a period ("forever") and
// nil facts are left out, as companyfacts leaves them out.
func (d *IXDocument) CompanyFacts(ref FilingRef) CompanyFacts {
	ref = d.complete(ref)
	fy, _ := strconv.Atoi(d.Info.FiscalYearFocus)
	cf := CompanyFacts{CIK: CIK(d.Info.CIK), EntityName: d.Info.RegistrantName, Facts: map[string]map[string]Concept{}}
	for _, f := range d.Facts {
		if f.Nil || f.End == "" {
			continue
		}
		class := ""
		if f.Dimensional {
			c, ok := ixShareClass(f)
			if f.Concept != SharesTag || !ok {
				continue
			}
			class = c
		}
		tax, tag, ok := strings.Cut(f.Concept, ":")
		if !ok {
			continue
		}
		if cf.Facts[tax] == nil {
			cf.Facts[tax] = map[string]Concept{}
		}
		c := cf.Facts[tax][tag]
		if c.Units == nil {
			c.Units = map[string][]Fact{}
		}
		c.Units[f.Unit] = append(c.Units[f.Unit], Fact{Start: f.Start, End: f.End, Val: json.Number(f.Value.String()),
			Accn: ref.Accession, FY: fy, FP: d.Info.FiscalPeriodFocus, Form: ref.Form, Filed: ref.Filed, Class: class, Doc: ref.Document})
		cf.Facts[tax][tag] = c
	}
	return cf
}

// InlineFundamentals maps an inline-XBRL document to fundamentals with the companyfacts mapping. A
// document without financial statements is ErrNoStatements (callers report it, not zeros); one whose
// filing date is unknown (neither in ref nor in the document name) is an error too, because the
// provenance of every value needs it.
func InlineFundamentals(d *IXDocument, ref FilingRef, symbol string) ([]shariah.Fundamentals, error) {
	if !d.HasStatements() {
		return nil, fmt.Errorf("inline XBRL %s: %w", d.Name, ErrNoStatements)
	}
	if d.complete(ref).Filed == "" {
		return nil, fmt.Errorf("inline XBRL %s: filing date unknown (give FilingRef.Filed)", d.Name)
	}
	return Fundamentals(d.CompanyFacts(ref), symbol)
}

// complete fills the defaults of a FilingRef (see FilingRef).
func (d *IXDocument) complete(ref FilingRef) FilingRef {
	ref.Document = ixOr(ref.Document, d.Name)
	ref.Accession = ixOr(ref.Accession, ref.Document)
	ref.Form = ixOr(ref.Form, d.Info.DocumentType)
	if ref.Filed == "" {
		if date, ok := FilingDateFromName(ref.Document); ok {
			ref.Filed = date
		} else if date, ok := FilingDateFromName(d.Name); ok {
			ref.Filed = date
		}
	}
	return ref
}

// ixFilingDateInName is the date at the end of a shared-data document name: <ticker>-<form>-<date>.html.
var ixFilingDateInName = regexp.MustCompile(`(\d{4}-\d{2}-\d{2})\.x?html?$`)

// FilingDateFromName reads the filing date from a document name of the form
// <ticker>-<form>-<YYYY-MM-DD>.html ("aapl-10-k-2024-11-01.html"); any directory is ignored.
func FilingDateFromName(name string) (string, bool) {
	m := ixFilingDateInName.FindStringSubmatch(path.Base(strings.ReplaceAll(name, `\`, "/")))
	if m == nil {
		return "", false
	}
	if _, err := time.Parse(dateLayout, m[1]); err != nil {
		return "", false
	}
	return m[1], true
}
