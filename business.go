package shariah

import (
	"strconv"
	"strings"
)

// Activity is a business activity found in a company's classification.
type Activity struct {
	Category string `json:"category"`
	// Primary: the category is the company's main activity (a prohibited one fails the screen);
	// otherwise the activity is doubtful (mixed or unclear) and makes the verdict questionable.
	Primary bool   `json:"primary"`
	Reason  string `json:"reason"`
}

type activityRule struct {
	category string
	primary  bool
	sic      [][2]int // inclusive SIC ranges
	words    []string // lower-case substrings of the industry (or sector) text
}

// activityRules classify a company by SIC code and industry text. They are deliberately conservative:
// a rule is primary only when the classification names the prohibited activity itself.
var activityRules = []activityRule{
	{"conventional_finance", true, [][2]int{{6000, 6099}, {6100, 6199}, {6300, 6399}, {6411, 6411}},
		[]string{"diversified banks", "regional banks", "commercial banks", "thrifts & mortgage", "mortgage finance",
			"consumer finance", "life & health insurance", "property & casualty insurance", "multi-line insurance",
			"reinsurance", "investment banking", "banks", "insurance", "credit services", "savings institution", "national commercial bank"}},
	{"conventional_finance", false, nil, []string{"multi-sector holdings", "asset management", "capital markets", "diversified financial",
		"insurance brokers", "financial services"}},
	{"alcohol", true, [][2]int{{2082, 2082}, {2084, 2085}, {5181, 5182}},
		[]string{"brewer", "distiller", "vintner", "winer", "alcoholic"}},
	{"tobacco", true, [][2]int{{2100, 2199}}, []string{"tobacco", "cigarette", "e-cigarette", "vaping"}},
	{"pork", true, nil, []string{"pork", "hog producer", "swine"}},
	{"gambling", true, [][2]int{{7993, 7993}}, []string{"casinos & gaming", "casino", "gambling", "lotter", "betting", "wagering"}},
	{"adult_entertainment", true, nil, []string{"adult entertainment", "pornograph"}},
	{"weapons", true, [][2]int{{3480, 3489}}, []string{"firearm", "ammunition", "small arms"}},
	{"defense", false, [][2]int{{3795, 3795}}, []string{"aerospace & defense", "defense", "defence"}},
	{"cannabis", true, nil, []string{"cannabis", "marijuana"}},
	{"hotels", true, [][2]int{{7011, 7011}}, []string{"hotels, resorts", "hotel", "resorts & casinos", "cruise lines"}},
	{"music", true, nil, []string{"music"}},
	{"cinema", true, [][2]int{{7812, 7812}, {7830, 7833}}, []string{"movies & entertainment", "cinema", "movie theat", "film production"}},
	{"online_dating", true, nil, []string{"online dating", "dating app"}},
}

// permitted are classifications that contain a prohibited word but are not that activity.
var permitted = []string{"islamic bank", "takaful", "shariah", "sharia", "non-alcoholic", "soft drinks"}

// ClassifyActivities finds the business activities of a company from its SIC code and industry and
// sector names. An empty result means nothing prohibited or doubtful was found; known reports whether
// there was any classification to look at.
func ClassifyActivities(a Asset) (acts []Activity, known bool) {
	text := strings.ToLower(strings.Join([]string{a.Industry, a.Sector, a.Name}, " | "))
	known = a.SIC != "" || a.Industry != "" || a.Sector != ""
	for _, p := range permitted {
		if strings.Contains(text, p) {
			return nil, known
		}
	}
	sic, _ := strconv.Atoi(a.SIC)
	seen := map[string]bool{}
	for _, r := range activityRules {
		if seen[r.category] {
			continue
		}
		reason := ""
		for _, rg := range r.sic {
			if sic >= rg[0] && sic <= rg[1] {
				reason = "SIC " + a.SIC
			}
		}
		if reason == "" {
			industry := strings.ToLower(a.Industry + " | " + a.Sector)
			for _, w := range r.words {
				if strings.Contains(industry, w) {
					reason = "industry '" + strings.TrimSpace(strings.Trim(a.Industry+" / "+a.Sector, " /")) + "'"
					break
				}
			}
		}
		if reason != "" {
			seen[r.category] = true
			acts = append(acts, Activity{Category: r.category, Primary: r.primary, Reason: reason})
		}
	}
	return acts, known
}
