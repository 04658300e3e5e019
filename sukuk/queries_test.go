package sukuk

import "testing"

func TestSukukOfIssuer(t *testing.T) {
	t.Parallel()
	all := []Sukuk{{ISIN: "A", IssuerLEI: "L1"}, {ISIN: "B", IssuerLEI: "L2"}, {ISIN: "C", IssuerLEI: "L1"}}
	if got := OfIssuer(all, "L1"); len(got) != 2 || got[0].ISIN != "A" || got[1].ISIN != "C" {
		t.Fatalf("issuer L1: %+v", got)
	}
	if got := OfIssuer(all, "L3"); len(got) != 0 {
		t.Fatalf("unknown issuer: %+v", got)
	}
}
