package shariah

import "testing"

func TestParseAssetFilter(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]AssetType{"": "", "all": "", " ANY ": "", "equities": Equity, "etf": ETF, "etfs": ETF, "fund": Fund, "indices": Index} {
		if got, ok := ParseAssetFilter(in); !ok || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, ok, want)
		}
	}
	if _, ok := ParseAssetFilter("bonds"); ok {
		t.Error("bonds accepted")
	}
}
