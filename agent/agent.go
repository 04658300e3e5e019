// Package agent is the terminal agent: it reads a short command or question ("screen AAPL", "compare
// MSFT GOOGL", "zakat on 10 AAPL and 2000 cash", "is NVDA halal under djim"), calls the same domain
// operations the REST routes and MCP tools use, and answers with the calls it made and their results.
// Without configuration it is deterministic (a small grammar); with an OpenAI-compatible chat endpoint
// configured, the model only rewrites free-form questions into that grammar, so what runs is always
// one of the known tool calls.
package agent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
)

// Tools are the domain operations the agent may call.
type Tools struct {
	Screener *shariah.Screener
	Ref      shariah.RefStore
	Catalogs *shariah.CatalogCache
	Zakat    *shariah.Zakat
	Insights *shariah.Insights
	News     shariah.NewsStore // optional
}

// Call is one tool call and its outcome.
type Call struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	Result    any            `json:"result,omitempty"`
	Error     *CallError     `json:"error,omitempty"`
}

// CallError is a tool call's failure, in the error envelope's terms.
type CallError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Answer is the agent's reply.
type Answer struct {
	Input     string `json:"input"`
	Command   string `json:"command"` // the command run (the input, or the model's rewrite of it)
	Mode      string `json:"mode"`    // rules, or llm (the model rewrote the input)
	Intent    string `json:"intent"`  // screen, compare, quote, zakat, news, alternatives, help, unknown
	ToolCalls []Call `json:"tool_calls"`
	Answer    string `json:"answer"`
	Note      string `json:"note,omitempty"`
}

// Agent answers commands.
type Agent struct {
	Tools Tools
	LLM   *LLM // optional
}

// MaxInput bounds a command, in bytes.
const MaxInput = 500

// Help lists the grammar.
const Help = "Commands: screen SYMBOL [under RULESET|METHODOLOGY]; is SYMBOL halal [under ...]; compare SYM SYM [...] (2-5); " +
	"quote SYMBOL; news SYMBOL; alternatives to SYMBOL; zakat on N SYMBOL [and N SYMBOL...] [and N cash] [and N receivables] [and N debts] [silver|gold|lower]."

// Ask runs a command.
func (a *Agent) Ask(ctx context.Context, input string) (Answer, error) {
	input = strings.TrimSpace(input)
	ans := Answer{Input: input, Command: input, Mode: "rules", ToolCalls: []Call{}}
	cmd, err := a.parse(ctx, input)
	if err != nil {
		return Answer{}, err
	}
	if cmd.intent == "unknown" && a.LLM != nil {
		rewritten, lerr := a.LLM.Rewrite(ctx, input)
		if lerr != nil {
			ans.Note = "The language model could not be reached (" + lerr.Error() + "); answered with the built-in grammar."
		} else if c2, err := a.parse(ctx, rewritten); err == nil && c2.intent != "unknown" {
			cmd, ans.Command, ans.Mode = c2, rewritten, "llm"
		}
	}
	ans.Intent = cmd.intent
	switch cmd.intent {
	case "help", "unknown":
		ans.Answer = Help
		if cmd.intent == "unknown" {
			ans.Answer = "I did not understand that. " + Help
		}
		return ans, nil
	}
	if err := a.run(ctx, cmd, &ans); err != nil {
		return Answer{}, err
	}
	return ans, nil
}

// command is a parsed request.
type command struct {
	intent               string
	symbols              []string // canonical
	unknown              []string // symbol-like words not in the database
	ruleset, methodology string
	zakat                shariah.ZakatRequest
}

var (
	wordRe   = regexp.MustCompile(`\$?[A-Za-z0-9^][A-Za-z0-9.\-=&^]*|\d[\d,]*(?:\.\d+)?`)
	numberRe = regexp.MustCompile(`^\d[\d,]*(?:\.\d+)?$`)
	// words that are never symbols in a command
	stop = map[string]bool{"screen": true, "is": true, "halal": true, "compliant": true, "shariah": true, "sharia": true,
		"under": true, "with": true, "using": true, "per": true, "compare": true, "and": true, "vs": true, "versus": true,
		"quote": true, "price": true, "of": true, "for": true, "news": true, "alternatives": true, "alternative": true,
		"to": true, "zakat": true, "on": true, "cash": true, "debt": true, "debts": true, "receivable": true,
		"receivables": true, "gold": true, "silver": true, "lower": true, "shares": true, "share": true, "the": true,
		"a": true, "an": true, "what": true, "whats": true, "please": true, "help": true, "stock": true, "stocks": true, "in": true}
)

// parse reads the grammar. Symbols are words written in capitals or with a $, or any word in a
// symbol's place (after screen, compare, quote, news, alternatives to), that the database knows.
func (a *Agent) parse(ctx context.Context, input string) (command, error) {
	words := wordRe.FindAllString(input, -1)
	if len(words) == 0 {
		return command{intent: "help"}, nil
	}
	lower := make([]string, len(words))
	for i, w := range words {
		lower[i] = strings.ToLower(strings.TrimPrefix(w, "$"))
	}
	cmd := command{intent: "unknown"}
	has := func(w string) bool {
		for _, l := range lower {
			if l == w {
				return true
			}
		}
		return false
	}
	switch {
	case lower[0] == "help":
		return command{intent: "help"}, nil
	case lower[0] == "zakat" || has("zakat"):
		cmd.intent = "zakat"
	case lower[0] == "compare":
		cmd.intent = "compare"
	case lower[0] == "screen" || lower[0] == "is" && (has("halal") || has("compliant") || has("shariah") || has("sharia")):
		cmd.intent = "screen"
	case lower[0] == "quote" || lower[0] == "price":
		cmd.intent = "quote"
	case lower[0] == "news":
		cmd.intent = "news"
	case lower[0] == "alternatives" || lower[0] == "alternative":
		cmd.intent = "alternatives"
	default:
		return cmd, nil
	}
	var rerr error
	resolve := func(w string) string {
		sym, err := a.Tools.Catalogs.Resolve(ctx, strings.TrimPrefix(w, "$"))
		if err != nil {
			rerr = err
		}
		return sym
	}
	for i := 0; i < len(words); i++ {
		w, l := words[i], lower[i]
		if (l == "under" || l == "with" || l == "using" || l == "per") && i+1 < len(words) {
			name := lower[i+1]
			if _, ok := a.Tools.Screener.Rulesets[name]; ok {
				cmd.ruleset = name
			} else {
				cmd.methodology = name
			}
			i++
			continue
		}
		if cmd.intent == "zakat" && numberRe.MatchString(w) {
			amount, err := decimal.NewFromString(strings.ReplaceAll(w, ",", ""))
			if err != nil || i+1 >= len(words) {
				continue
			}
			next := lower[i+1]
			switch {
			case next == "cash":
				cmd.zakat.Cash = shariah.NewNumber(cmd.zakat.Cash.Add(amount))
			case next == "debt" || next == "debts":
				cmd.zakat.Debts = shariah.NewNumber(cmd.zakat.Debts.Add(amount))
			case next == "receivable" || next == "receivables":
				cmd.zakat.Receivables = shariah.NewNumber(cmd.zakat.Receivables.Add(amount))
			default:
				j := i + 1
				if (next == "shares" || next == "share") && j+1 < len(words) {
					j++
					if lower[j] == "of" && j+1 < len(words) {
						j++
					}
				}
				if sym := resolve(words[j]); sym != "" {
					shares := shariah.NewNumber(amount)
					cmd.zakat.Holdings = append(cmd.zakat.Holdings, shariah.ZakatHolding{Symbol: sym, Shares: &shares})
				} else {
					cmd.unknown = append(cmd.unknown, strings.ToUpper(words[j]))
				}
				i = j
				continue
			}
			i++
			continue
		}
		if cmd.intent == "zakat" && (l == "gold" || l == "silver" || l == "lower") {
			cmd.zakat.NisabMetal = l
			continue
		}
		if stop[l] || numberRe.MatchString(w) {
			continue
		}
		symbolPlace := i == 1 || cmd.intent == "compare" || i == 2 && lower[1] == "to"
		if !symbolPlace && !strings.HasPrefix(w, "$") && w != strings.ToUpper(w) {
			continue
		}
		if sym := resolve(w); sym != "" {
			cmd.symbols = append(cmd.symbols, sym)
		} else {
			cmd.unknown = append(cmd.unknown, strings.ToUpper(strings.TrimPrefix(w, "$")))
		}
	}
	return cmd, rerr
}

// call runs one tool and records it; a domain error is the call's error, anything else fails the request.
func call(ans *Answer, tool string, args map[string]any, f func() (any, error)) (any, bool, error) {
	res, err := f()
	c := Call{Tool: tool, Arguments: args}
	code := shariah.ErrorCode(err)
	switch {
	case err == nil:
		c.Result = res
	case code == shariah.EINTERNAL || code == shariah.EUNAVAILABLE:
		return nil, false, err
	default:
		msg := err.Error()
		var de *shariah.Error
		if errors.As(err, &de) {
			msg = de.Message
		}
		c.Error = &CallError{Code: code, Message: msg}
	}
	ans.ToolCalls = append(ans.ToolCalls, c)
	return res, err == nil, nil
}

func (a *Agent) run(ctx context.Context, cmd command, ans *Answer) error {
	var lines []string
	if len(cmd.unknown) > 0 {
		lines = append(lines, "Not in the database: "+strings.Join(cmd.unknown, ", ")+".")
	}
	need := func(n int, what string) bool {
		if len(cmd.symbols) < n {
			lines = append(lines, "Name "+what+". "+Help)
			return false
		}
		return true
	}
	opts := shariah.ScreenOptions{Ruleset: cmd.ruleset, Methodology: cmd.methodology}
	screen := func(sym string) (shariah.Result, bool, error) {
		args := map[string]any{"symbol": sym}
		if cmd.ruleset != "" {
			args["ruleset"] = cmd.ruleset
		}
		if cmd.methodology != "" {
			args["methodology"] = cmd.methodology
		}
		res, ok, err := call(ans, "screen_stock", args, func() (any, error) {
			r, _, err := a.Tools.Screener.Screen(ctx, sym, opts)
			return r, err
		})
		if !ok || err != nil {
			return shariah.Result{}, false, err
		}
		return res.(shariah.Result), true, nil
	}
	switch cmd.intent {
	case "screen":
		if !need(1, "a symbol to screen") {
			break
		}
		r, ok, err := screen(cmd.symbols[0])
		if err != nil {
			return err
		}
		if ok {
			lines = append(lines, shariah.VerdictSentence(r))
		} else {
			lines = append(lines, ans.ToolCalls[len(ans.ToolCalls)-1].Error.Message)
		}
	case "compare":
		if len(cmd.symbols) > 5 {
			cmd.symbols = cmd.symbols[:5]
			lines = append(lines, "Compared the first 5 symbols.")
		}
		if !need(2, "two to five symbols to compare") {
			break
		}
		for _, sym := range cmd.symbols {
			r, ok, err := screen(sym)
			if err != nil {
				return err
			}
			if ok {
				lines = append(lines, shariah.VerdictSentence(r))
			} else {
				lines = append(lines, sym+": "+ans.ToolCalls[len(ans.ToolCalls)-1].Error.Message)
			}
		}
	case "quote":
		if !need(1, "a symbol") {
			break
		}
		sym := cmd.symbols[0]
		res, ok, err := call(ans, "get_quote", map[string]any{"symbol": sym}, func() (any, error) {
			q, found, err := a.Tools.Ref.Quote(ctx, sym)
			if err == nil && !found {
				err = shariah.Errorf(shariah.ENOTFOUND, "No price data for %s.", sym)
			}
			return q, err
		})
		if err != nil {
			return err
		}
		if ok {
			q := res.(shariah.Quote)
			line := fmt.Sprintf("%s: %s %s as of %s (%s)", q.Symbol, q.Price.String(), q.Currency, q.AsOf, q.Source)
			if q.ChangePercent != nil {
				line += ", " + q.ChangePercent.StringFixed(2) + "% on the day"
			}
			lines = append(lines, line+".")
		} else {
			lines = append(lines, ans.ToolCalls[len(ans.ToolCalls)-1].Error.Message)
		}
	case "news":
		if a.Tools.News == nil {
			lines = append(lines, "News is not available here.")
			break
		}
		if !need(1, "a symbol") {
			break
		}
		sym := cmd.symbols[0]
		res, _, err := call(ans, "get_news", map[string]any{"symbol": sym, "limit": 5}, func() (any, error) {
			list, _, err := a.Tools.News.News(ctx, shariah.NewsQuery{Symbol: sym, Limit: 5})
			if list == nil {
				list = []shariah.Article{}
			}
			return list, err
		})
		if err != nil {
			return err
		}
		list := res.([]shariah.Article)
		if len(list) == 0 {
			lines = append(lines, "No news on file for "+sym+".")
		}
		for _, art := range list {
			lines = append(lines, fmt.Sprintf("%s %s [%s relevance]", art.Published.Format("2006-01-02"), art.Title, art.ComplianceRelevance))
		}
	case "alternatives":
		if !need(1, "a symbol") {
			break
		}
		sym := cmd.symbols[0]
		res, ok, err := call(ans, "get_alternatives", map[string]any{"symbol": sym, "limit": 5}, func() (any, error) {
			return a.Tools.Insights.Alternatives(ctx, sym, opts, 5)
		})
		if err != nil {
			return err
		}
		if !ok {
			lines = append(lines, ans.ToolCalls[len(ans.ToolCalls)-1].Error.Message)
			break
		}
		alts := res.(shariah.AlternativesResult)
		var syms []string
		for _, alt := range alts.Alternatives {
			syms = append(syms, alt.Symbol)
		}
		if len(syms) == 0 {
			lines = append(lines, alts.Note)
		} else {
			lines = append(lines, fmt.Sprintf("Compliant alternatives to %s (%s): %s.", sym, alts.Sector, strings.Join(syms, ", ")))
		}
	case "zakat":
		req := cmd.zakat
		args := map[string]any{"holdings": req.Holdings, "cash": req.Cash, "receivables": req.Receivables, "debts": req.Debts, "nisab_metal": req.NisabMetal}
		res, ok, err := call(ans, "calculate_zakat", args, func() (any, error) { return a.Tools.Zakat.Calculate(ctx, req) })
		if err != nil {
			return err
		}
		if !ok {
			lines = append(lines, ans.ToolCalls[len(ans.ToolCalls)-1].Error.Message)
			break
		}
		z := res.(shariah.ZakatResult)
		if z.ZakatDue {
			lines = append(lines, fmt.Sprintf("Zakat due: %s USD (2.5%% of %s USD zakatable wealth, above the %s nisab of %s USD).",
				z.AmountOwed.StringFixed(2), z.ZakatableWealth.StringFixed(2), z.Nisab.Metal, z.Nisab.Threshold.StringFixed(2)))
		} else {
			lines = append(lines, fmt.Sprintf("No zakat due: zakatable wealth %s USD does not exceed the %s nisab of %s USD.",
				z.ZakatableWealth.StringFixed(2), z.Nisab.Metal, z.Nisab.Threshold.StringFixed(2)))
		}
		if len(z.Excluded) > 0 {
			lines = append(lines, "Excluded (no value): "+strings.Join(z.Excluded, ", ")+".")
		}
	}
	ans.Answer = strings.Join(lines, "\n")
	return nil
}
