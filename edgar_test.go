package shariah

import "testing"

func TestEDGARFilingURL(t *testing.T) {
	t.Parallel()
	if u := EDGARFilingURL("320193", "0000320193-25-000079", "aapl-20250927.htm"); u != "https://www.sec.gov/Archives/edgar/data/320193/000032019325000079/aapl-20250927.htm" {
		t.Fatalf("document: %s", u)
	}
	if u := EDGARFilingURL("320193", "0000320193-25-000079", ""); u != "https://www.sec.gov/Archives/edgar/data/320193/000032019325000079/" {
		t.Fatalf("folder: %s", u)
	}
}
