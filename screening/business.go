package screening

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shariah-screen/shariah"
)

// Activity is a business activity found in a company's classification.
type Activity struct {
	// Category is the ruleset category (BusinessCategories) a methodology excludes or not.
	Category string `json:"category"`
	// Activity names what was found, e.g. "conventional insurance" (category conventional_finance).
	Activity string `json:"activity"`
	// Primary: the category is the company's main activity (a prohibited one fails the screen);
	// otherwise the activity is doubtful (mixed or unclear) and makes the verdict questionable.
	Primary bool `json:"primary"`
	// Reason is the classification it rests on: "SIC 6324 Hospital & Medical Service Plans",
	// "GICS sub-industry Managed Health Care".
	Reason string `json:"reason"`
	// Source names where that classification came from.
	Source string `json:"source,omitempty"`
}

// ActivityRule maps SIC codes and industry names to one business activity. ActivityRules is the one
// table the business screen uses (REST, jobs and MCP all screen through Screen); docs/
// business-classification.md documents it row by row.
type ActivityRule struct {
	Category string // ruleset category (BusinessCategories)
	Activity string // what it is, in words
	Primary  bool   // the classification names the activity itself (else: doubtful)
	SIC      [][2]int
	// Names are industry names matched whole, case-insensitive (GICS sub-industries and industries).
	Names []string
	// Words are lower-case substrings of free-text industry names (directories, SIC descriptions).
	Words []string
	// SectorNames are sector names matched whole, only when the company has no industry and no SIC.
	SectorNames []string
	// SICUnlessIndustry: the SIC code is broader than the activity (7011 hotels holds casino hotels and
	// every other hotel); it counts only when no industry name is known to say which.
	SICUnlessIndustry bool
}

// ActivityRules is the mapping of SIC codes and industry names to prohibited (primary) and doubtful
// activities. Order matters: for one category the first matching rule wins, so primary rules come
// before doubtful ones, and a SIC code is tried before the industry name.
var ActivityRules = []ActivityRule{
	// Conventional finance: banking, lending and securities dealing.
	{Category: "conventional_finance", Activity: "conventional finance", Primary: true,
		SIC: [][2]int{{6011, 6099}, {6111, 6199}, {6211, 6211}},
		Names: []string{"diversified banks", "regional banks", "banks", "commercial banks", "asset management & custody banks",
			"thrifts & mortgage finance", "consumer finance", "commercial & residential mortgage finance", "mortgage reits",
			"specialized finance", "investment banking & brokerage"},
		Words: []string{"commercial bank", "savings institution", "national bank", "state bank", "banks", "mortgage finance",
			"consumer finance", "personal credit", "credit institution", "finance lessor", "loan broker", "investment banking",
			"security brokers", "securities brokerage"}},
	// Conventional insurance.
	{Category: "conventional_finance", Activity: "conventional insurance", Primary: true,
		SIC: [][2]int{{6311, 6399}, {6411, 6411}},
		Names: []string{"managed health care", "insurance brokers", "life & health insurance", "multi-line insurance",
			"property & casualty insurance", "reinsurance", "insurance"},
		Words: []string{"insurance", "reinsurance", "insurers", "hospital & medical service plans"}},
	{Category: "conventional_finance", Activity: "conventional financial services", Primary: false,
		SIC: [][2]int{{6200, 6210}, {6212, 6299}},
		Names: []string{"multi-sector holdings", "diversified financial services", "diversified capital markets",
			"financial exchanges & data", "capital markets", "diversified financials", "financial services"},
		Words:       []string{"asset management", "capital markets", "diversified financial", "financial services", "investment advice"},
		SectorNames: []string{"financials", "financial services", "finance"}},
	// Alcohol.
	{Category: "alcohol", Activity: "alcohol", Primary: true,
		SIC:   [][2]int{{2082, 2085}, {5180, 5182}, {5813, 5813}, {5921, 5921}},
		Names: []string{"brewers", "distillers & vintners"},
		Words: []string{"brewer", "distiller", "vintner", "winer", "alcoholic", "malt beverages", "wines", "liquor"}},
	// Tobacco.
	{Category: "tobacco", Activity: "tobacco", Primary: true,
		SIC:   [][2]int{{2100, 2199}, {5194, 5194}},
		Names: []string{"tobacco"},
		Words: []string{"tobacco", "cigarette", "e-cigarette", "vaping"}},
	// Pork.
	{Category: "pork", Activity: "pork", Primary: true,
		SIC:   [][2]int{{213, 213}},
		Words: []string{"pork", "hog producer", "hogs", "swine"}},
	{Category: "pork", Activity: "meat packing (may include pork)", Primary: false,
		SIC: [][2]int{{2011, 2013}}},
	// Gambling.
	{Category: "gambling", Activity: "gambling", Primary: true,
		SIC:   [][2]int{{7993, 7993}},
		Names: []string{"casinos & gaming"},
		Words: []string{"casino", "gambling", "lotter", "betting", "wagering"}},
	{Category: "gambling", Activity: "hotels and motels (may include casino hotels)", Primary: false,
		SIC: [][2]int{{7011, 7011}}, SICUnlessIndustry: true},
	{Category: "gambling", Activity: "amusement and recreation (may include betting)", Primary: false,
		SIC: [][2]int{{7999, 7999}}, SICUnlessIndustry: true},
	// Adult entertainment.
	{Category: "adult_entertainment", Activity: "adult entertainment", Primary: true,
		Words: []string{"adult entertainment", "pornograph"}},
	// Weapons (civilian arms and ammunition) and defense.
	{Category: "weapons", Activity: "weapons and ammunition", Primary: true,
		SIC:   [][2]int{{3480, 3489}},
		Words: []string{"firearm", "ammunition", "small arms", "ordnance"}},
	{Category: "defense", Activity: "defense", Primary: true,
		SIC: [][2]int{{3795, 3795}}},
	{Category: "defense", Activity: "aerospace and defense", Primary: false,
		SIC:   [][2]int{{3760, 3769}, {3812, 3812}},
		Names: []string{"aerospace & defense"},
		Words: []string{"defense", "defence"}},
	// MSCI's wider list.
	{Category: "cannabis", Activity: "cannabis", Primary: true,
		Words: []string{"cannabis", "marijuana"}},
	{Category: "hotels", Activity: "hotels", Primary: true,
		SIC:   [][2]int{{7011, 7011}},
		Names: []string{"hotels, resorts & cruise lines"},
		Words: []string{"hotel", "resorts & casinos", "cruise lines"}},
	{Category: "music", Activity: "music", Primary: true,
		SIC:   [][2]int{{3652, 3652}},
		Words: []string{"music", "phonograph records"}},
	{Category: "cinema", Activity: "cinema", Primary: true,
		SIC:   [][2]int{{7812, 7833}},
		Names: []string{"movies & entertainment"},
		Words: []string{"cinema", "movie theat", "motion picture", "film production"}},
	{Category: "online_dating", Activity: "online dating", Primary: true,
		Words: []string{"online dating", "dating app"}},
}

// permitted are classifications that contain a prohibited word but are not that activity.
var permitted = []string{"islamic bank", "takaful", "shariah", "sharia", "non-alcoholic", "soft drinks"}

// Classification is what the business screen read: the SIC code (with EDGAR's description) and the
// industry name, each with where it came from. Basis says which were there: "sic", "industry",
// "sic_and_industry", "sector" (a sector name only) or "none".
type Classification struct {
	Basis          string `json:"basis"`
	SIC            string `json:"sic,omitempty"`
	SICDescription string `json:"sic_description,omitempty"`
	SICSource      string `json:"sic_source,omitempty"`
	Sector         string `json:"sector,omitempty"`
	Industry       string `json:"industry,omitempty"`
	IndustrySource string `json:"industry_source,omitempty"`
	// Text names every classification read and its source, for explanations.
	Text string `json:"text"`
}

// Classification bases.
const (
	BasisSIC            = "sic"
	BasisIndustry       = "industry"
	BasisSICAndIndustry = "sic_and_industry"
	BasisSector         = "sector"
	BasisNone           = "none"
)

// UnknownClassificationNote is the data_quality note of a company with no classification.
const UnknownClassificationNote = "business classification unknown: no SIC code, industry or sector on file, so the business screen cannot pass"

// BusinessPassedReason is business_screen_reason when the business screen passed with no prohibited
// or doubtful activity: "no prohibited activity found in " and every classification read, with its
// source (Classification.Text), e.g. "no prohibited activity found in SIC 3674 Semiconductors &
// Related Devices (SEC EDGAR submissions)".
func BusinessPassedReason(c Classification) string {
	return "no prohibited activity found in " + c.Text
}

// sicLabel is "SIC 6324 Hospital & Medical Service Plans" (or "SIC 6324" without a description).
func (c Classification) sicLabel() string {
	return strings.TrimSpace("SIC " + c.SIC + " " + c.SICDescription)
}

// industryLabel is "GICS sub-industry Managed Health Care" when the source says the scheme, else
// "industry Managed Health Care" (or "sector Financials" with a sector only).
func (c Classification) industryLabel() string {
	if c.Industry == "" {
		return "sector " + c.Sector
	}
	if strings.Contains(c.IndustrySource, "GICS sub-industry") {
		return "GICS sub-industry " + c.Industry
	}
	return "industry " + c.Industry
}

// ClassificationOf reads a company's classification. A SIC code is kept as 4 digits (a pack may
// drop the leading zero of 0213).
func ClassificationOf(a shariah.Asset) Classification {
	c := Classification{Sector: strings.TrimSpace(a.Sector), Industry: strings.TrimSpace(a.Industry)}
	if sic := strings.TrimSpace(a.SIC); sic != "" {
		if n, err := strconv.Atoi(sic); err == nil && n > 0 && n <= 9999 {
			c.SIC = fmt.Sprintf("%04d", n)
			c.SICDescription, c.SICSource = strings.TrimSpace(a.SICDescription), a.SICSource
			if c.SICSource == "" {
				c.SICSource = a.Source
			}
		}
	}
	if c.Industry != "" || c.Sector != "" {
		c.IndustrySource = a.IndustrySource
		if c.IndustrySource == "" {
			c.IndustrySource = a.Source
		}
	}
	var parts []string
	if c.SIC != "" {
		parts = append(parts, withSource(c.sicLabel(), c.SICSource))
	}
	// A SIC description repeated as the industry (a submissions-only record) is not a second source.
	if (c.Industry != "" && !strings.EqualFold(c.Industry, c.SICDescription)) || (c.Industry == "" && c.Sector != "") {
		parts = append(parts, withSource(c.industryLabel(), c.IndustrySource))
	}
	switch {
	case c.SIC != "" && len(parts) > 1:
		c.Basis = BasisSICAndIndustry
	case c.SIC != "":
		c.Basis = BasisSIC
	case c.Industry != "":
		c.Basis = BasisIndustry
	case c.Sector != "":
		c.Basis = BasisSector
	default:
		c.Basis = BasisNone
	}
	c.Text = strings.Join(parts, "; ")
	if c.Basis == BasisNone {
		c.Text = "no classification on file (no SIC code, industry or sector)"
	}
	return c
}

func withSource(label, source string) string {
	if source == "" {
		return label
	}
	return label + " (" + source + ")"
}

// Known reports whether there is any classification to screen.
func (c Classification) Known() bool { return c.Basis != BasisNone }

// ClassifyActivities finds the business activities of a company from its SIC code and industry and
// sector names. An empty result means nothing prohibited or doubtful was found; known reports whether
// there was any classification to look at.
func ClassifyActivities(a shariah.Asset) (acts []Activity, known bool) {
	c := ClassificationOf(a)
	return c.Activities(a.Name), c.Known()
}

// Activities applies ActivityRules to the classification; name is the company's name (an Islamic
// bank or a takaful operator says so in its name or industry, and is not conventional finance).
func (c Classification) Activities(name string) []Activity {
	text := strings.ToLower(strings.Join([]string{c.Industry, c.Sector, c.SICDescription, name}, " | "))
	for _, p := range permitted {
		if strings.Contains(text, p) {
			return nil
		}
	}
	sic, _ := strconv.Atoi(c.SIC)
	industry := strings.ToLower(c.Industry)
	words := strings.ToLower(c.Industry + " | " + c.SICDescription)
	var acts []Activity
	seen := map[string]bool{}
	for _, r := range ActivityRules {
		if seen[r.Category] {
			continue
		}
		reason, source := "", ""
		if sic > 0 && (!r.SICUnlessIndustry || c.Industry == "" || strings.EqualFold(c.Industry, c.SICDescription)) {
			for _, rg := range r.SIC {
				if sic >= rg[0] && sic <= rg[1] {
					reason, source = c.sicLabel(), c.SICSource
				}
			}
		}
		if reason == "" && industry != "" {
			if matchesName(industry, r.Names) || matchesWord(words, r.Words) {
				reason, source = c.industryLabel(), c.IndustrySource
				if strings.EqualFold(c.Industry, c.SICDescription) {
					reason, source = c.sicLabel(), c.SICSource
				}
			}
		} else if reason == "" && c.SICDescription != "" && matchesWord(strings.ToLower(c.SICDescription), r.Words) {
			reason, source = c.sicLabel(), c.SICSource
		}
		if reason == "" && industry == "" && sic == 0 && matchesName(strings.ToLower(c.Sector), r.SectorNames) {
			reason, source = c.industryLabel(), c.IndustrySource
		}
		if reason != "" {
			seen[r.Category] = true
			acts = append(acts, Activity{Category: r.Category, Activity: r.Activity, Primary: r.Primary, Reason: reason, Source: source})
		}
	}
	return acts
}

func matchesName(s string, names []string) bool {
	for _, n := range names {
		if s == n {
			return true
		}
	}
	return false
}

func matchesWord(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
