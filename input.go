package shariah

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// Bounds of user input. Every amount, quantity and stored name a client sends (REST bodies and query
// parameters, MCP tool arguments, the terminal agent's commands) is checked here, through Validation, so
// a value out of bounds is a VALIDATION_ERROR (422 on REST, a tool error on MCP) naming the field.

// MaxAmount is the largest money amount an input accepts, in the currency unit of the field (USD for
// the zakat and purification calculators): 10^15, a thousand trillion, above any real holding or income.
// It applies to cash, receivables, debts, market values, dividend income, investment amounts, sukuk
// nominal values and metal prices per gram. A larger number (1e9999, which a float would overflow to
// infinity, included) is refused rather than computed: it also bounds every figure a response derives
// from the input, so a response stays proportionate to its request.
const MaxAmount = 1_000_000_000_000_000

// MaxQuantity is the largest number of shares an input accepts: 10^15.
const MaxQuantity = 1_000_000_000_000_000

// MaxInputPlaces is the most digits after the decimal point an amount or a quantity may have (trailing
// zeros do not count): enough for any float a client prints, few enough that 1e-9999 is refused.
const MaxInputPlaces = 18

// MaxNumberText is the longest text a JSON number input may have (digits, sign, point and exponent);
// a longer one is a type error, before any digit is parsed.
const MaxNumberText = 1000

// Amount checks a money input at loc: zero or more (greater than zero when positive), at most MaxAmount,
// at most MaxInputPlaces decimal places. Each problem is added to v; ok reports that there was none.
// Non-numbers (NaN, Infinity, text) never get here: a Number refuses them when decoded, as a type error
// naming the field.
func (v *Validation) Amount(d decimal.Decimal, positive bool, loc ...any) bool {
	return v.number(d, positive, MaxAmount, loc)
}

// Quantity checks a number of shares at loc as Amount checks money, with the ceiling MaxQuantity.
func (v *Validation) Quantity(d decimal.Decimal, positive bool, loc ...any) bool {
	return v.number(d, positive, MaxQuantity, loc)
}

func (v *Validation) number(d decimal.Decimal, positive bool, limit int64, loc []any) bool {
	switch {
	case d.Sign() < 0 && !positive:
		v.Add("must be zero or more", "value_error.number.not_ge", loc...)
		return false
	case d.Sign() <= 0 && positive:
		v.Add("must be greater than zero", "value_error.number.not_gt", loc...)
		return false
	}
	// Decide from the digits and the exponent: comparing 1e2000000000 with the ceiling as decimals would
	// first write out its two billion digits.
	digits := strings.TrimLeft(d.Coefficient().String(), "-")
	exp := int64(d.Exponent())
	if trimmed := strings.TrimRight(digits, "0"); trimmed != "" {
		exp += int64(len(digits) - len(trimmed))
		digits = trimmed
	}
	maxText := strconv.FormatInt(limit, 10)
	ok := true
	switch {
	case digits == "0":
	case int64(len(digits))+exp > int64(len(maxText)) || (exp >= -MaxInputPlaces && d.GreaterThan(decimal.NewFromInt(limit))):
		// more integer digits than the ceiling has, or as many and larger (exp is small: a safe compare)
		v.Add("must be at most "+maxText, "value_error.number.not_le", loc...)
		ok = false
	}
	if digits != "0" && exp < -MaxInputPlaces {
		v.Add(fmt.Sprintf("at most %d decimal places", MaxInputPlaces), "value_error.number.max_places", loc...)
		ok = false
	}
	return ok
}

// Name checks a free-text name a user stores (a watchlist's name) at loc and returns it trimmed of
// surrounding white space: present, not empty, at most limit characters, valid UTF-8, and
// without control characters (C0 including NUL and ESC, DEL, C1) or Unicode bidirectional formatting
// characters (the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069, the marks U+200E,
// U+200F and U+061C), which make a name display as something other than what it is, and without line
// Items checks the length n of a list at loc: at least min items (min 0: none needed) and at most max;
// the messages name the noun ("at most 100 holdings per request"). ok reports that there was no problem.
func (v *Validation) Items(n, min, max int, noun string, loc ...any) bool {
	switch {
	case n < min && min == 1:
		v.Add("give at least one "+strings.TrimSuffix(noun, "s"), "value_error.list.min_items", loc...)
	case n < min:
		v.Add(fmt.Sprintf("give at least %d %s", min, noun), "value_error.list.min_items", loc...)
	case n > max:
		v.Add(fmt.Sprintf("at most %d %s per request", max, noun), "value_error.list.max_items", loc...)
	default:
		return true
	}
	return false
}

// Choice reads an enumerated field: trimmed and lower-cased, def when empty, and one of allowed or a
// problem "must be one of: a, b" (value_error.enum) at loc.
func (v *Validation) Choice(s *string, def string, allowed []string, loc ...any) {
	*s = strings.ToLower(strings.TrimSpace(*s))
	if *s == "" {
		*s = def
	}
	if !slices.Contains(allowed, *s) {
		v.Add("must be one of: "+strings.Join(allowed, ", "), "value_error.enum", loc...)
	}
}

// Name reads a required name: trimmed, not empty, valid UTF-8, at most limit characters, and without
// the characters ForbiddenInName refuses (controls, line or paragraph separators). ok reports that no problem was added to v.
func (v *Validation) Name(name *string, limit int, loc ...any) (string, bool) {
	if name == nil {
		v.Add("field required", "value_error.missing", loc...)
		return "", false
	}
	n := strings.TrimSpace(*name)
	switch {
	case n == "":
		v.Add("must not be empty", "value_error.any_str.min_length", loc...)
		return "", false
	case !utf8.ValidString(n):
		v.Add("must be valid UTF-8", "value_error.str.encoding", loc...)
		return "", false
	case utf8.RuneCountInString(n) > limit:
		v.Add(fmt.Sprintf("at most %d characters", limit), "value_error.any_str.max_length", loc...)
		return "", false
	}
	for i, r := range []rune(n) {
		if what := ForbiddenInName(r); what != "" {
			v.Add(fmt.Sprintf("must not contain %s (U+%04X at character %d)", what, r, i), "value_error.str.forbidden_character", loc...)
			return "", false
		}
	}
	return n, true
}

// ForbiddenInName names the kind of a character a stored name may not hold ("" when it may).
func ForbiddenInName(r rune) string {
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return "a control character"
	case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c:
		return "a bidirectional formatting character"
	case r == 0x2028 || r == 0x2029:
		return "a line or paragraph separator"
	}
	return ""
}

// TypeErrorLoc is where a JSON type error lies in data (decoded into dst, a pointer): the object keys
// and array indexes from the root down to the offending value, e.g. [holdings 1 market_value].
// encoding/json names the keys (te.Field) but not the indexes; each array on the way is searched for
// its first element that does not decode, which is the one the decoder reported (it reports the first
// error in document order). Where the data cannot be followed the rest of te.Field is used as it is.
func TypeErrorLoc(data []byte, dst any, te *json.UnmarshalTypeError) []any {
	var segs []string
	if te.Field != "" {
		segs = strings.Split(te.Field, ".")
	}
	var loc []any
	rest := func() []any {
		for _, s := range segs {
			loc = append(loc, s)
		}
		return loc
	}
	t := reflect.TypeOf(dst)
	raw := json.RawMessage(data)
	for {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil {
			return rest()
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array:
			var elems []json.RawMessage
			if json.Unmarshal(raw, &elems) != nil {
				return rest() // the array itself is of the wrong type
			}
			i := slices.IndexFunc(elems, func(e json.RawMessage) bool { return json.Unmarshal(e, reflect.New(t.Elem()).Interface()) != nil })
			if i < 0 {
				return rest()
			}
			loc, raw, t = append(loc, i), elems[i], t.Elem()
		case reflect.Struct:
			if len(segs) == 0 {
				return loc
			}
			f, ok := jsonField(t, segs[0])
			if !ok {
				return rest()
			}
			if f.Anonymous && f.Tag.Get("json") == "" {
				// An embedded struct: te.Field names it, the JSON object has no level for it.
				t, segs = f.Type, segs[1:]
				continue
			}
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return rest()
			}
			v, ok := obj[segs[0]]
			for k, kv := range obj { // encoding/json matches keys without regard to case
				if !ok && strings.EqualFold(k, segs[0]) {
					v, ok = kv, true
				}
			}
			if !ok {
				return rest()
			}
			loc, raw, t, segs = append(loc, segs[0]), v, f.Type, segs[1:]
		default:
			return rest()
		}
	}
}

// jsonField is the field of struct type t whose JSON name is name, or the embedded struct of that
// type name (as te.Field names it).
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if n == "-" {
			continue
		}
		if n == "" {
			n = f.Name
		}
		if n == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
