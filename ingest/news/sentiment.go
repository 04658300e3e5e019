package news

import (
	"math"
	"regexp"
	"strings"
	"unicode"
)

// Sentiment labels.
const (
	Bullish = "bullish"
	Bearish = "bearish"
	Neutral = "neutral"
)

// positiveWords and negativeWords are the finance word lists of Sentiment, in base form; inflections
// that simple suffix stripping does not reach ("rose", "fell", "sank") are listed as words of their
// own. They read the words of market news: price moves, results against expectations, analyst
// actions, corporate and legal events. Words that are frequent in news on both sides ("deal", "price",
// "target", "buy", "rate", "dividend") are in neither.
var positiveWords = set(
	// price moves
	"up", "higher", "highs", "rise", "rose", "risen", "rising", "gain", "gainer", "climb", "jump",
	"surge", "soar", "rally", "rallied", "advance", "rebound", "recover", "recovery", "bounce", "spike",
	"pop", "skyrocket", "rocket", "zoom", "leap", "leapt", "uptick", "upswing", "upturn", "uptrend",
	"breakout", "outpace", "outperform", "outperformer", "overweight", "accumulate", "bull", "bullish",
	"squeeze", "lift", "boost", "buoy", "buoyed", "firmer", "rebounded",
	// results and outlook
	"beat", "tops", "topped", "exceed", "surpass", "crush", "smash", "trounce", "blowout", "record",
	"profit", "profitable", "profitability", "growth", "grow", "grew", "grown", "expand", "expansion",
	"strong", "stronger", "strongest", "strength", "strengthen", "robust", "solid", "upbeat", "optimism",
	"optimistic", "positive", "upside", "raise", "raised", "increase", "improve", "improvement",
	"accelerate", "acceleration", "momentum", "boom", "booming", "thrive", "success", "successful",
	"tailwind", "favorable", "favourable", "attractive", "undervalued", "stellar", "impressive",
	"excellent", "healthy", "resilient", "resilience", "confidence", "confident", "promising",
	"encouraging", "benefit", "bright", "brighter", "rosy", "cheer", "enthusiasm", "windfall", "surplus",
	"narrow", "narrower", "better-than-expected", "stronger-than-expected", "above-consensus",
	// analyst and corporate actions
	"upgrade", "buyback", "repurchase", "reinstate", "approval", "approve", "clearance", "breakthrough",
	"win", "won", "award", "milestone", "partnership", "wins", "bargain", "reaffirm",
)

var negativeWords = set(
	// price moves
	"down", "lower", "lows", "lowest", "fall", "fell", "fallen", "drop", "decline", "dip", "sag", "slip",
	"slid", "slide", "sink", "sank", "slump", "plunge", "plummet", "tumble", "tank", "crater", "nosedive",
	"dive", "retreat", "selloff", "sell-off", "rout", "crash", "collapse", "turmoil", "underperform",
	"underweight", "bear", "bearish", "downside", "downturn", "downtrend", "lag",
	// results and outlook
	"miss", "missed", "loss", "lose", "lost", "deficit", "shortfall", "weak", "weaker", "weakest",
	"weakness", "weaken", "soft", "softer", "softness", "slow", "slower", "slowdown", "sluggish", "stall",
	"shrink", "contraction", "below", "disappoint", "disappointing", "disappointment", "downbeat",
	"gloomy", "pessimism", "pessimistic", "negative", "headwind", "pressure", "pressured", "struggle",
	"trouble", "troubled", "problem", "concern", "fear", "worry", "worried", "doubt", "uncertainty",
	"uncertain", "caution", "cautious", "warn", "warning", "bleak", "grim", "dismal", "poor", "worse",
	"worst", "worsen", "deteriorate", "erode", "recession", "writedown", "impairment", "dilution",
	"dilutive", "overvalued", "worse-than-expected", "overhang",
	// analyst, corporate, legal events
	"downgrade", "cut", "slash", "reduce", "trim", "lawsuit", "sue", "probe", "investigation", "subpoena",
	"fine", "fined", "penalty", "recall", "scandal", "fraud", "bankruptcy", "bankrupt", "insolvency",
	"default", "layoff", "delay", "halt", "suspend", "suspension", "shutdown", "fail", "failure",
	"reject", "rejection", "ban", "sanction", "outage", "breach", "hack", "violation", "antitrust",
	"delist", "delisting", "liquidation", "crisis", "threat", "shortage",
)

// negators flip the sign of a word that follows within two words.
var negators = set(
	"not", "no", "never", "nor", "without", "neither", "don't", "doesn't", "didn't", "isn't", "aren't",
	"wasn't", "weren't", "won't", "wouldn't", "can't", "cannot", "couldn't", "shouldn't", "hasn't",
	"haven't", "hadn't", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "wont", "cant", "fails",
	"failed",
)

// ratingWords are analyst ratings; they count only after "to", "at", "with", "as" or "a" ("cut to
// Sell", "initiated at Buy") since "buy" and "sell" are mostly verbs.
var ratingWords = map[string]int{"buy": 1, "strong-buy": 1, "sell": -1}

var ratingLead = set("to", "at", "with", "as", "a", "rated", "reiterated", "reiterates", "maintains")

// lossWords are reversed by a nearby "narrow": "loss narrows" is good news.
var lossWords = set("loss", "losses", "deficit", "shortfall")

var pctMoveRE = regexp.MustCompile(`(?:^|[\s(])([+\-−])\d+(?:\.\d+)?\s?%`)

// Sentiment scores the tone of financial news text with the finance word lists: score = (pos − neg) /
// max(1, pos + neg) in [−1, 1], where pos and neg count the positive and negative words; a word
// preceded within two words by a negator ("not", "no", "never", "didn't"...) counts for the other side;
// a word right after "from" is not counted ("downgraded to Neutral from Outperform"); a signed
// percentage ("+5%", "-2.7%") counts as a word of its sign; "record" takes the sign of the word it
// qualifies ("record low"); "narrow" reverses a nearby loss ("net loss narrows"). Label: bullish above
// 0.2, bearish below −0.2, else neutral.
func Sentiment(text string) (score float64, label string) {
	toks := sentimentTokens(text)
	var pos, neg float64
	count := func(sign int) {
		if sign > 0 {
			pos++
		} else if sign < 0 {
			neg++
		}
	}
	for i, tk := range toks {
		sign := 0
		if r, ok := ratingWords[tk.lower]; ok {
			if i > 0 && ratingLead[toks[i-1].lower] && tk.capital {
				sign = r
			}
		} else {
			sign = wordSign(tk.lower)
		}
		if sign == 0 {
			continue
		}
		if i > 0 && toks[i-1].lower == "from" {
			continue
		}
		switch {
		case tk.lower == "record" && i+1 < len(toks):
			if next := toks[i+1].lower; next == "low" || wordSign(next) < 0 {
				sign = -1
			}
		case lossWords[tk.lower] && nearNarrow(toks, i):
			continue
		}
		for j := i - 1; j >= 0 && j >= i-2; j-- {
			if negators[toks[j].lower] {
				sign = -sign
				break
			}
		}
		count(sign)
	}
	for _, m := range pctMoveRE.FindAllStringSubmatch(text, -1) {
		if m[1] == "+" {
			count(1)
		} else {
			count(-1)
		}
	}
	score = (pos - neg) / math.Max(1, pos+neg)
	score = math.Max(-1, math.Min(1, score))
	switch {
	case score > 0.2:
		label = Bullish
	case score < -0.2:
		label = Bearish
	default:
		label = Neutral
	}
	return score, label
}

func nearNarrow(toks []sentimentToken, i int) bool {
	for j := max(0, i-2); j <= i+2 && j < len(toks); j++ {
		if j != i && strings.HasPrefix(toks[j].lower, "narrow") {
			return true
		}
	}
	return false
}

// wordSign is +1 for a positive word, −1 for a negative one, 0 otherwise; inflections are reduced by
// suffix stripping ("beats", "surged", "rallying", "layoffs", "worries").
func wordSign(w string) int {
	for _, c := range stemCandidates(w) {
		if positiveWords[c] {
			return 1
		}
		if negativeWords[c] {
			return -1
		}
	}
	return 0
}

// stemCandidates are w and the forms suffix stripping gives: -s, -es, -ies, -ed, -d, -ied, -ing (with
// a doubled consonant undone or a dropped e restored) and -ly.
func stemCandidates(w string) []string {
	out := []string{w}
	add := func(s string) {
		if len(s) >= 2 {
			out = append(out, s)
		}
	}
	undouble := func(s string) {
		n := len(s)
		if n >= 3 && s[n-1] == s[n-2] && !strings.ContainsRune("aeiouls", rune(s[n-1])) {
			add(s[:n-1])
		}
	}
	switch {
	case strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied"):
		add(w[:len(w)-3] + "y")
	case strings.HasSuffix(w, "ing"):
		b := w[:len(w)-3]
		add(b)
		add(b + "e")
		undouble(b)
	case strings.HasSuffix(w, "ed"):
		b := w[:len(w)-2]
		add(b)
		add(w[:len(w)-1])
		undouble(b)
	case strings.HasSuffix(w, "es"):
		add(w[:len(w)-2])
		add(w[:len(w)-1])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		add(w[:len(w)-1])
	case strings.HasSuffix(w, "ly"):
		add(w[:len(w)-2])
	}
	return out
}

type sentimentToken struct {
	lower   string
	capital bool
}

// sentimentTokens splits text into words: letters with inner apostrophes and hyphens ("didn't",
// "sell-off"); a ’ is read as '.
func sentimentTokens(s string) []sentimentToken {
	var toks []sentimentToken
	var b strings.Builder
	capital := false
	flush := func() {
		w := strings.Trim(b.String(), "'-")
		if w != "" {
			toks = append(toks, sentimentToken{lower: w, capital: capital})
		}
		b.Reset()
		capital = false
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			if b.Len() == 0 {
				capital = unicode.IsUpper(r)
			}
			b.WriteRune(unicode.ToLower(r))
		case (r == '\'' || r == '’' || r == '-') && b.Len() > 0:
			if r == '’' {
				r = '\''
			}
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return toks
}
