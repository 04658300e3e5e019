package shariah

import (
	"testing"
)

func TestNormalizeSymbolAndISIN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{" aapl ": "AAPL", "brk-b": "BRK-B", "^gspc": "^GSPC", "0700.HK": "0700.HK", "EURUSD=X": "EURUSD=X"} {
		if got, ok := NormalizeSymbol(in); !ok || got != want {
			t.Errorf("%q -> %q %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", " ", "A A", "AAPL;DROP", "<script>", "a/b", "$AAPL", "ABCDEFGHIJKLMNOPQRSTUV", "^^X"} {
		if _, ok := NormalizeSymbol(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, good := range []string{"US0378331005", "GB0002374006", "KYG875721634", "SA14TG012N13", "MYL1155OO000"} {
		if !ValidISIN(good) {
			t.Errorf("%s rejected", good)
		}
	}
	for _, bad := range []string{"US0378331006", "us0378331005", "US037833100", "0S0378331005", "US03783310O5"} {
		if ValidISIN(bad) {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestPriceParseAndFormat(t *testing.T) {
	t.Parallel()
	cases := map[string]string{"207.4": "207.40", "1892.7554931640625": "1892.755493", "0.0000005": "0.000001", "12": "12.00",
		"-1.5": "-1.50", "1e3": "1000.00", "0.1234565": "0.123457"}
	for in, want := range cases {
		p, err := ParsePrice(in)
		if err != nil || p.String() != want {
			t.Errorf("%s -> %s %v, want %s", in, p, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "1.2.3", "--1", "99999999999999999"} {
		if _, err := ParsePrice(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
