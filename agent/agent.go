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
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/finance"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// QuoteReader is what the agent reads of the reference store: stored quotes.
type QuoteReader interface {
	Quote(ctx context.Context, symbol string) (market.Quote, bool, error)
}

// Tools are the domain operations the agent may call.
type Tools struct {
	Screener *screening.Screener
	Ref      QuoteReader
	Catalogs *catalog.Cache
	Zakat    *finance.Zakat
	Insights *insights.Service
	News     filings.NewsStore // optional
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
	zakat                finance.ZakatRequest
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
	cmd := command{intent: intentOf(lower)}
	if cmd.intent == "help" || cmd.intent == "unknown" {
		return cmd, nil
	}
	p := &parser{a: a, ctx: ctx, words: words, lower: lower, cmd: &cmd}
	for i := 0; i < len(words); i++ {
		i = p.word(i)
	}
	return cmd, p.err
}

// intentOf is the intent of a command's (lower-case) words.
func intentOf(lower []string) string {
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
		return "help"
	case lower[0] == "zakat" || has("zakat"):
		return "zakat"
	case lower[0] == "compare":
		return "compare"
	case lower[0] == "screen" || lower[0] == "is" && (has("halal") || has("compliant") || has("shariah") || has("sharia")):
		return "screen"
	case lower[0] == "quote" || lower[0] == "price":
		return "quote"
	case lower[0] == "news":
		return "news"
	case lower[0] == "alternatives" || lower[0] == "alternative":
		return "alternatives"
	}
	return "unknown"
}

// parser reads the words of one command into cmd; err is the last failure to resolve a symbol.
type parser struct {
	a            *Agent
	ctx          context.Context
	words, lower []string
	cmd          *command
	err          error
}

func (p *parser) resolve(w string) string {
	sym, err := p.a.Tools.Catalogs.Resolve(p.ctx, strings.TrimPrefix(w, "$"))
	if err != nil {
		p.err = err
	}
	return sym
}

// word reads the word at i (and the words it takes) and returns the index of the last word read.
func (p *parser) word(i int) int {
	w, l, cmd := p.words[i], p.lower[i], p.cmd
	if (l == "under" || l == "with" || l == "using" || l == "per") && i+1 < len(p.words) {
		name := p.lower[i+1]
		if _, ok := p.a.Tools.Screener.Rulesets[name]; ok {
			cmd.ruleset = name
		} else {
			cmd.methodology = name
		}
		return i + 1
	}
	if cmd.intent == "zakat" && numberRe.MatchString(w) {
		return p.amount(i)
	}
	if cmd.intent == "zakat" && (l == "gold" || l == "silver" || l == "lower") {
		cmd.zakat.NisabMetal = l
		return i
	}
	if stop[l] || numberRe.MatchString(w) {
		return i
	}
	symbolPlace := i == 1 || cmd.intent == "compare" || i == 2 && p.lower[1] == "to"
	if !symbolPlace && !strings.HasPrefix(w, "$") && w != strings.ToUpper(w) {
		return i
	}
	if sym := p.resolve(w); sym != "" {
		cmd.symbols = append(cmd.symbols, sym)
	} else {
		cmd.unknown = append(cmd.unknown, strings.ToUpper(strings.TrimPrefix(w, "$")))
	}
	return i
}

// amount reads a zakat amount at i: of cash, debts, receivables, or shares of a symbol.
func (p *parser) amount(i int) int {
	z := &p.cmd.zakat
	amount, err := decimal.NewFromString(strings.ReplaceAll(p.words[i], ",", ""))
	if err != nil || i+1 >= len(p.words) {
		return i
	}
	switch next := p.lower[i+1]; {
	case next == "cash":
		z.Cash = shariah.NewNumber(z.Cash.Add(amount))
	case next == "debt" || next == "debts":
		z.Debts = shariah.NewNumber(z.Debts.Add(amount))
	case next == "receivable" || next == "receivables":
		z.Receivables = shariah.NewNumber(z.Receivables.Add(amount))
	default:
		j := i + 1
		if (next == "shares" || next == "share") && j+1 < len(p.words) {
			j++
			if p.lower[j] == "of" && j+1 < len(p.words) {
				j++
			}
		}
		if sym := p.resolve(p.words[j]); sym != "" {
			shares := shariah.NewNumber(amount)
			z.Holdings = append(z.Holdings, finance.ZakatHolding{Symbol: sym, Shares: &shares})
		} else {
			p.cmd.unknown = append(p.cmd.unknown, strings.ToUpper(p.words[j]))
		}
		return j
	}
	return i + 1
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

// turn is one command being answered: its tool calls go to ans, its answer lines to lines.
type turn struct {
	a     *Agent
	ctx   context.Context
	cmd   command
	ans   *Answer
	lines []string
}

// intents answer the commands that call tools.
var intents = map[string]func(*turn) error{
	"screen": (*turn).screen, "compare": (*turn).compare, "quote": (*turn).quote,
	"news": (*turn).news, "alternatives": (*turn).alternatives, "zakat": (*turn).zakat,
}

func (a *Agent) run(ctx context.Context, cmd command, ans *Answer) error {
	t := &turn{a: a, ctx: ctx, cmd: cmd, ans: ans}
	if len(cmd.unknown) > 0 {
		t.say("Not in the database: " + strings.Join(cmd.unknown, ", ") + ".")
	}
	if f, ok := intents[cmd.intent]; ok {
		if err := f(t); err != nil {
			return err
		}
	}
	ans.Answer = strings.Join(t.lines, "\n")
	return nil
}

func (t *turn) say(line string) { t.lines = append(t.lines, line) }

// failed is the message of the last tool call's error.
func (t *turn) failed() string { return t.ans.ToolCalls[len(t.ans.ToolCalls)-1].Error.Message }

// need says what is missing when the command names fewer than n symbols.
func (t *turn) need(n int, what string) bool {
	if len(t.cmd.symbols) < n {
		t.say("Name " + what + ". " + Help)
		return false
	}
	return true
}

func (t *turn) opts() screening.ScreenOptions {
	return screening.ScreenOptions{Ruleset: t.cmd.ruleset, Methodology: t.cmd.methodology}
}

// screenOne runs screen_stock on one symbol.
func (t *turn) screenOne(sym string) (screening.Result, bool, error) {
	args := map[string]any{"symbol": sym}
	if t.cmd.ruleset != "" {
		args["ruleset"] = t.cmd.ruleset
	}
	if t.cmd.methodology != "" {
		args["methodology"] = t.cmd.methodology
	}
	res, ok, err := call(t.ans, "screen_stock", args, func() (any, error) {
		r, _, err := t.a.Tools.Screener.Screen(t.ctx, sym, t.opts())
		return r, err
	})
	if !ok || err != nil {
		return screening.Result{}, false, err
	}
	return res.(screening.Result), true, nil
}

func (t *turn) screen() error {
	if !t.need(1, "a symbol to screen") {
		return nil
	}
	r, ok, err := t.screenOne(t.cmd.symbols[0])
	if err != nil {
		return err
	}
	if ok {
		t.say(screening.VerdictSentence(r))
	} else {
		t.say(t.failed())
	}
	return nil
}

func (t *turn) compare() error {
	if len(t.cmd.symbols) > 5 {
		t.cmd.symbols = t.cmd.symbols[:5]
		t.say("Compared the first 5 symbols.")
	}
	if !t.need(2, "two to five symbols to compare") {
		return nil
	}
	for _, sym := range t.cmd.symbols {
		r, ok, err := t.screenOne(sym)
		if err != nil {
			return err
		}
		if ok {
			t.say(screening.VerdictSentence(r))
		} else {
			t.say(sym + ": " + t.failed())
		}
	}
	return nil
}

func (t *turn) quote() error {
	if !t.need(1, "a symbol") {
		return nil
	}
	sym := t.cmd.symbols[0]
	res, ok, err := call(t.ans, "get_quote", map[string]any{"symbol": sym}, func() (any, error) {
		q, found, err := t.a.Tools.Ref.Quote(t.ctx, sym)
		if err == nil && !found {
			err = shariah.Errorf(shariah.ENOTFOUND, "No price data for %s.", sym)
		}
		return q, err
	})
	if err != nil || !ok {
		if err == nil {
			t.say(t.failed())
		}
		return err
	}
	q := res.(market.Quote)
	line := fmt.Sprintf("%s: %s %s as of %s (%s)", q.Symbol, q.Price.String(), q.Currency, q.AsOf, q.Source)
	if q.ChangePercent != nil {
		line += ", " + q.ChangePercent.StringFixed(2) + "% on the day"
	}
	t.say(line + ".")
	return nil
}

func (t *turn) news() error {
	if t.a.Tools.News == nil {
		t.say("News is not available here.")
		return nil
	}
	if !t.need(1, "a symbol") {
		return nil
	}
	sym := t.cmd.symbols[0]
	res, _, err := call(t.ans, "get_news", map[string]any{"symbol": sym, "limit": 5}, func() (any, error) {
		list, _, err := t.a.Tools.News.News(t.ctx, filings.NewsQuery{Symbol: sym, Limit: 5})
		if list == nil {
			list = []filings.Article{}
		}
		return list, err
	})
	if err != nil {
		return err
	}
	list := res.([]filings.Article)
	if len(list) == 0 {
		t.say("No news on file for " + sym + ".")
	}
	for _, art := range list {
		t.say(fmt.Sprintf("%s %s [%s relevance]", art.Published.Format("2006-01-02"), art.Title, art.ComplianceRelevance))
	}
	return nil
}

func (t *turn) alternatives() error {
	if !t.need(1, "a symbol") {
		return nil
	}
	sym := t.cmd.symbols[0]
	res, ok, err := call(t.ans, "get_alternatives", map[string]any{"symbol": sym, "limit": 5}, func() (any, error) {
		return t.a.Tools.Insights.Alternatives(t.ctx, sym, t.opts(), 5)
	})
	if err != nil || !ok {
		if err == nil {
			t.say(t.failed())
		}
		return err
	}
	alts := res.(insights.AlternativesResult)
	var syms []string
	for _, alt := range alts.Alternatives {
		syms = append(syms, alt.Symbol)
	}
	if len(syms) == 0 {
		t.say(alts.Note)
	} else {
		t.say(fmt.Sprintf("Compliant alternatives to %s (%s): %s.", sym, alts.Sector, strings.Join(syms, ", ")))
	}
	return nil
}

func (t *turn) zakat() error {
	req := t.cmd.zakat
	args := map[string]any{"holdings": req.Holdings, "cash": req.Cash, "receivables": req.Receivables, "debts": req.Debts, "nisab_metal": req.NisabMetal}
	res, ok, err := call(t.ans, "calculate_zakat", args, func() (any, error) { return t.a.Tools.Zakat.Calculate(t.ctx, req) })
	if err != nil || !ok {
		if err == nil {
			t.say(t.failed())
		}
		return err
	}
	z := res.(finance.ZakatResult)
	if z.ZakatDue {
		t.say(fmt.Sprintf("Zakat due: %s USD (2.5%% of %s USD zakatable wealth, above the %s nisab of %s USD).",
			z.AmountOwed.StringFixed(2), z.ZakatableWealth.StringFixed(2), z.Nisab.Metal, z.Nisab.Threshold.StringFixed(2)))
	} else {
		t.say(fmt.Sprintf("No zakat due: zakatable wealth %s USD does not exceed the %s nisab of %s USD.",
			z.ZakatableWealth.StringFixed(2), z.Nisab.Metal, z.Nisab.Threshold.StringFixed(2)))
	}
	if len(z.Excluded) > 0 {
		t.say("Excluded (no value): " + strings.Join(z.Excluded, ", ") + ".")
	}
	return nil
}
