package shariah_test

import (
	"math/rand/v2"
	"regexp"
	"testing"

	shariah "github.com/shariah-screen/shariah"
)

// The symbol check agrees with the regular expression it replaces, on chosen and random strings.
func TestSymbolShapedMatchesItsRegexp(t *testing.T) {
	re := regexp.MustCompile(`^\^?[A-Z0-9][A-Z0-9.\-=&]{0,19}$`)
	cases := []string{"", "^", "^^GSPC", "^GSPC", "AAPL", "BRK.B", "BRK-B", ".B", "-A", "=X", "&A", "A&B", "EURUSD=X",
		"ABCDEFGHIJKLMNOPQRST", "ABCDEFGHIJKLMNOPQRSTU", "^ABCDEFGHIJKLMNOPQRST", "^ABCDEFGHIJKLMNOPQRSTU", "aapl", "A B", "A\x00", "É"}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "AZ09.-=&^a _\xc3"
	for i := 0; i < 20000; i++ {
		b := make([]byte, r.IntN(24))
		for j := range b {
			b[j] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := shariah.SymbolShaped(s), re.MatchString(s); got != want {
			t.Errorf("%q: symbolShaped %v, the regexp %v", s, got, want)
		}
	}
}
