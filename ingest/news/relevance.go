package news

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Compliance relevance levels.
const (
	RelevanceHigh   = "high"
	RelevanceMedium = "medium"
	RelevanceLow    = "low"
)

// relevanceGroup is a kind of event that bears on a Shariah screen: debt and M&A change the ratios,
// material events and dividend changes the verdict or the purification.
type relevanceGroup struct {
	name     string // named in the reason
	category string // Article.Category when the feed gave none
	level    string
	patterns []*regexp.Regexp
}

func res(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(`(?i)\b(?:` + e + `)\b`)
	}
	return out
}

const (
	debtInstrument = `(?:senior |secured |unsecured |subordinated |convertible |exchangeable |green |sustainability-linked |fixed-rate |floating-rate |term )*(?:notes?|bonds?|debentures?|debt securities|sukuk)`
	amount         = `(?:(?:us)?\$|€|£)?\s?[\d.,]+\s?(?:million|billion|bn|mln|m|b)?`
	amountWord     = `(?:us\$|\$|€|£)?[\d.,]+(?:bn|mln|m|b)?|million|billion|mln|bln`
)

// relevanceGroups in order of precedence: the high groups first, then the medium ones.
var relevanceGroups = []relevanceGroup{
	{"debt issuance", "debt", RelevanceHigh, res(
		debtInstrument+`\s+(?:offering|issuance|issue|sale|placement|deal)s?`,
		`(?:offers?|offering|issues?|issued|issuing|prices?|priced|pricing|sells?|sold|launch(?:es|ed)?|raises?|raised|completes?|completed|closes?|closed)(?:\s+(?:an?|its|the|new|upsized|private|public|inaugural|proposed|offering|of|in|aggregate|principal|amount|additional|`+amountWord+`)){0,8}\s+(?:`+debtInstrument+`|debt)`,
		`convertible (?:senior )?(?:notes|bonds|debentures)`,
		`(?:revolving |syndicated |senior |secured |unsecured )*credit (?:facility|facilities|agreement|line)`,
		`(?:revolving|revolver) (?:loan|facility)`,
		`term loans?`, `bridge loans?`, `loan agreement`, `borrow(?:s|ed)`, `to borrow`,
		`debt (?:financing|offering|raise|deal|issuance)`, `refinanc(?:e|es|ed|ing)`, `commercial paper program`,
	)},
	{"mergers and acquisitions", "m&a", RelevanceHigh, res(
		`acquir(?:e|es|ed|ing)`, `acquisitions?`, `mergers?`, `merg(?:e|es|ed|ing)`, `buyouts?`,
		`takeovers?`, `tender offer`, `(?:agrees?|agreed|deal|offer|bid|move|plans?) to (?:buy|purchase) `,
		`to be (?:bought|acquired|taken private)`, `take (?:it )?private`, `go-private`, `spin-?offs?`,
		`spins? off`, `divest(?:s|ed|ing|iture|itures|ment)?`, `sells? (?:its|the) \w+ (?:unit|business|division|segment)`,
		`all-stock deal`, `all-cash deal`, `hostile bid`,
	)},
	{"material event", "material_event", RelevanceHigh, res(
		`bankrupt(?:cy|cies)?`, `chapter (?:11|7|15)`, `defaults?`, `defaulted`, `going[- ]concern`,
		`restructur(?:e|es|ed|ing)`, `delist(?:s|ed|ing)?`, `delisting notice`,
		`sec (?:investigation|probe|inquiry|charges|subpoena|enforcement|settlement|lawsuit)`,
		`(?:investigation|probe|inquiry|subpoena|charges) (?:by|from) the (?:sec|securities and exchange commission)`,
		`insolven(?:t|cy)`, `receivership`, `liquidation`, `administration proceedings`,
		`accounting (?:irregularities|fraud|restatement)`, `restate(?:s|d|ment)?`, `non-reliance`,
		`wind(?:s|ing)?[- ]down`, `missed (?:a |an )?(?:interest|coupon|debt) payment`, `creditor protection`,
	)},
	{"dividend change", "dividends", RelevanceHigh, res(
		`(?:raises?|raised|increases?|increased|hikes?|hiked|boosts?|boosted|lifts?|lifted|cuts?|slash(?:es|ed)?|suspends?|suspended|eliminates?|eliminated|omits?|omitted|scraps?|scrapped|halts?|halted|reinstates?|reinstated|resumes?|resumed|initiates?|initiated|lowers?|lowered|reduces?|reduced|trims?|trimmed|pauses?|paused)\s+(?:its\s+|the\s+|a\s+)?(?:quarterly\s+|annual\s+|monthly\s+|semi-annual\s+|interim\s+|final\s+|cash\s+|common\s+)*(?:dividends?|payouts?|distributions?)`,
		`(?:dividend|payout|distribution) (?:increase|hike|cut|suspension|reduction|raise|boost|elimination|reinstatement)s?`,
		`special (?:cash )?dividends?`, `(?:suspension|elimination|reinstatement) of (?:the |its )?(?:quarterly )?dividends?`,
		`first(?:-ever)? dividend`,
		`dividends? (?:raised|increased|hiked|boosted|cut|slashed|suspended|eliminated|reinstated|lowered|reduced)`,
	)},
	{"earnings", "earnings", RelevanceMedium, res(
		`earnings`, `eps`, `(?:quarterly|annual|full-year|fiscal|q[1-4]|first-quarter|second-quarter|third-quarter|fourth-quarter|(?:first|second|third|fourth) quarter) (?:results|profit|loss|earnings|net income)`,
		`net (?:income|loss)`, `(?:beats|misses|tops|topped|missed|beat|miss) (?:estimates|expectations|forecasts|consensus|views)`,
		`profit (?:warning|falls|rises|jumps|drops|slumps|surges)`, `results of operations`,
	)},
	{"guidance", "guidance", RelevanceMedium, res(`guidance`, `outlook`, `forecasts?`, `projections?`)},
	{"revenue", "earnings", RelevanceMedium, res(`revenues?`, `(?:quarterly|annual|net|same-store|comparable|comparable-store|organic) sales`, `sales (?:rise|rose|fall|fell|grew|growth|decline|jump)`)},
	{"rating change", "analyst_rating", RelevanceMedium, res(
		`upgrade[sd]?`, `downgrade[sd]?`, `price target`, `initiat(?:es|ed|ing) coverage`, `coverage initiated`,
		`(?:raises|cuts|lowers|boosts|lifts|trims) (?:pt|target)`, `credit rating`, `rating (?:cut|upgrade|downgrade|outlook)`,
		`(?:cut|raised|upgraded|downgraded|lowered) to (?:buy|sell|hold|neutral|outperform|underperform|overweight|underweight|equal[- ]weight|market perform)`,
	)},
	{"share buyback", "buyback", RelevanceMedium, res(
		`buy-?backs?`, `(?:share|stock) repurchases?`, `repurchase (?:program|plan|authorization)`,
		`repurchas(?:e|es|ed|ing) (?:up to )?(?:`+amount+` (?:of |in )?)?(?:its )?(?:shares|stock)`,
	)},
	{"management change", "management", RelevanceMedium, res(
		`(?:ceo|cfo|coo|cto|chief executive|chief financial officer|chief operating officer|chairman|chairwoman|chair|president) (?:resigns|resigned|steps down|to step down|stepping down|departs|to depart|retires|to retire|exits|to exit|is leaving|ousted|fired|named|appointed)`,
		`(?:names|named|appoints|appointed|hires|hired|taps|tapped|picks) (?:a )?(?:new )?(?:interim )?(?:ceo|cfo|coo|cto|chief executive|chief financial officer|chairman|chair|president)`,
		`new (?:ceo|cfo|chief executive)`, `resign(?:s|ed|ation)`, `steps down`, `stepping down`,
		`succession`, `ousts?`, `ousted`, `management (?:change|shake-?up|overhaul)`, `board shake-?up`,
	)},
	{"dividend", "dividends", RelevanceMedium, res(`dividends?`, `distributions? (?:of|per share)`)},
}

// Relevance grades how much a news item bears on a Shariah screen. "high": debt issuance (bond or notes
// offering, credit facility, term loan, borrowing, convertible notes), mergers and acquisitions,
// material events (bankruptcy, chapter 11, default, going concern, restructuring, delisting, SEC
// investigation) and dividend changes (increase, cut, suspension, special dividend); "medium":
// earnings, guidance, revenue, rating changes, share buybacks, management changes; "low" otherwise.
// The reason names the group and the phrase matched for each group found at that level, e.g. "debt
// issuance: 'senior notes offering'"; title and summary are read together.
func Relevance(title, summary string) (level, reason string) {
	level, reason, _ = relevance(title, summary)
	return level, reason
}

// relevance is Relevance with the category of the first group matched ("" when low).
func relevance(title, summary string) (level, reason, category string) {
	text := strings.Join(strings.Fields(title+" \n "+summary), " ")
	for _, lv := range []string{RelevanceHigh, RelevanceMedium} {
		var reasons []string
		for _, g := range relevanceGroups {
			if g.level != lv {
				continue
			}
			if m := firstMatch(text, g.patterns); m != "" {
				reasons = append(reasons, fmt.Sprintf("%s: '%s'", g.name, strings.ToLower(m)))
				if category == "" {
					category = g.category
				}
			}
		}
		if len(reasons) > 0 {
			return lv, strings.Join(reasons, "; "), category
		}
	}
	return RelevanceLow, "no debt, M&A, material-event, dividend, earnings or management news found", ""
}

// firstMatch is the earliest match of any of the patterns in text ("" when none).
func firstMatch(text string, ps []*regexp.Regexp) string {
	best, at := "", -1
	for _, p := range ps {
		if loc := p.FindStringIndex(text); loc != nil && (at < 0 || loc[0] < at || loc[0] == at && loc[1]-loc[0] > len(best)) {
			best, at = strings.TrimSpace(text[loc[0]:loc[1]]), loc[0]
		}
	}
	return best
}

// eightKItems names the items of SEC Form 8-K.
var eightKItems = map[string]string{
	"1.01": "entry into a material definitive agreement",
	"1.02": "termination of a material definitive agreement",
	"1.03": "bankruptcy or receivership",
	"1.04": "mine safety: reporting of shutdowns and patterns of violations",
	"1.05": "material cybersecurity incidents",
	"2.01": "completion of acquisition or disposition of assets",
	"2.02": "results of operations and financial condition",
	"2.03": "creation of a direct financial obligation",
	"2.04": "triggering events that accelerate or increase a direct financial obligation",
	"2.05": "costs associated with exit or disposal activities",
	"2.06": "material impairments",
	"3.01": "notice of delisting or failure to satisfy a continued listing rule",
	"3.02": "unregistered sales of equity securities",
	"3.03": "material modification to rights of security holders",
	"4.01": "changes in registrant's certifying accountant",
	"4.02": "non-reliance on previously issued financial statements",
	"5.01": "changes in control of registrant",
	"5.02": "departure or appointment of directors or certain officers",
	"5.03": "amendments to articles of incorporation or bylaws; change in fiscal year",
	"5.04": "temporary suspension of trading under registrant's employee benefit plans",
	"5.05": "amendment to or waiver of the code of ethics",
	"5.06": "change in shell company status",
	"5.07": "submission of matters to a vote of security holders",
	"5.08": "shareholder director nominations",
	"6.01": "ABS informational and computational material",
	"6.02": "change of servicer or trustee",
	"6.03": "change in credit enhancement or other external support",
	"6.04": "failure to make a required distribution",
	"6.05": "securities act updating disclosure",
	"6.06": "static pool",
	"6.10": "alternative filings of asset-backed issuers",
	"7.01": "regulation FD disclosure",
	"8.01": "other events",
	"9.01": "financial statements and exhibits",
}

var eightKLevel = map[string]string{
	"1.01": RelevanceHigh, "1.03": RelevanceHigh, "2.01": RelevanceHigh, "2.03": RelevanceHigh,
	"2.04": RelevanceHigh, "3.01": RelevanceHigh, "4.02": RelevanceHigh,
	"2.02": RelevanceMedium, "5.02": RelevanceMedium, "7.01": RelevanceMedium, "8.01": RelevanceMedium,
}

// RelevanceFor8K grades an 8-K filing by its item codes ("2.02", "Item 2.02", "2.02,9.01" as EDGAR's
// submissions list them): high for 1.01 (material agreement), 1.03 (bankruptcy), 2.01 (acquisition or
// disposition), 2.03 (direct financial obligation), 2.04 (triggering events), 3.01 (delisting), 4.02
// (non-reliance); medium for 2.02 (results), 5.02 (officers), 7.01 (Regulation FD), 8.01 (other
// events); low otherwise. The reason names the items that set the level, with their descriptions (all
// the items when low).
func RelevanceFor8K(items []string) (level, reason string) {
	var codes []string
	seen := map[string]bool{}
	for _, it := range items {
		for _, part := range strings.FieldsFunc(it, func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
			c := normalizeItem(part)
			if c != "" && !seen[c] {
				seen[c] = true
				codes = append(codes, c)
			}
		}
	}
	if len(codes) == 0 {
		return RelevanceLow, "8-K without item codes"
	}
	sort.Slice(codes, func(i, j int) bool { return itemLess(codes[i], codes[j]) })
	level = RelevanceLow
	for _, c := range codes {
		if l := eightKLevel[c]; l == RelevanceHigh || l == RelevanceMedium && level == RelevanceLow {
			level = l
		}
	}
	var parts []string
	for _, c := range codes {
		l := eightKLevel[c]
		if l == "" {
			l = RelevanceLow
		}
		if l != level {
			continue
		}
		d := eightKItems[c]
		if d == "" {
			d = "unknown item"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", c, d))
	}
	if len(parts) == 1 {
		return level, "8-K item " + parts[0]
	}
	return level, "8-K items " + strings.Join(parts, ", ")
}

// normalizeItem reads "Item 2.02", "2.02", "2.2" or "202" as "2.02"; "" when it is no item code.
func normalizeItem(s string) string {
	s = strings.TrimSpace(strings.ToLower(s))
	s = strings.TrimPrefix(s, "item")
	s = strings.Trim(s, " .:")
	if s == "" {
		return ""
	}
	major, minor, ok := strings.Cut(s, ".")
	if !ok {
		if len(s) != 3 {
			return ""
		}
		major, minor = s[:1], s[1:]
	}
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil || a < 1 || a > 9 || b < 0 || b > 99 {
		return ""
	}
	return fmt.Sprintf("%d.%02d", a, b)
}

func itemLess(a, b string) bool {
	fa, _ := strconv.ParseFloat(a, 64)
	fb, _ := strconv.ParseFloat(b, 64)
	return fa < fb
}
