package screening_test

import (
	"slices"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// ratioMarksOf is every ratio's marks, "KEY/ratio" -> kinds.
func ratioMarksOf(r screening.Result) map[string][]string {
	out := map[string][]string{}
	for key, mr := range r.ByMethodology {
		for _, rr := range mr.Ratios {
			out[key+"/"+rr.ID] = rr.Marks
		}
	}
	return out
}

func TestMarksOf(t *testing.T) {
	t.Parallel()
	spec := allRulesets(t)["spec"]

	// Filed inputs and real closes: no mark anywhere.
	filed := screening.Screen(base(), spec, "")
	if m := screening.MarksOf(filed); m.Any() || m.Label() != "" || m.Suffix() != "" || len(filed.DataQuality.Marks) != 0 {
		t.Fatalf("filed screening marked: %+v %+v", m, filed.DataQuality.Marks)
	}
	for k, v := range ratioMarksOf(filed) {
		if len(v) != 0 {
			t.Fatalf("filed ratio %s marked %v", k, v)
		}
	}

	// Illustrative fundamentals: every ratio and the screening are marked illustrative.
	in := base()
	for k, f := range in.Fundamentals[0].Facts {
		f.Source = shariah.SourceIllustrative
		in.Fundamentals[0].Facts[k] = f
	}
	ill := screening.Screen(in, spec, "")
	m := screening.MarksOf(ill)
	if m.Label() != "illustrative" || m.Suffix() != " (illustrative)" || !slices.Equal(m.Kinds(), []string{screening.MarkIllustrative}) {
		t.Fatalf("illustrative marks %+v", m)
	}
	if len(ill.DataQuality.Marks) != 1 || ill.DataQuality.Marks[0].Kind != screening.MarkIllustrative || ill.DataQuality.Marks[0].Detail == "" {
		t.Fatalf("data_quality.marks %+v", ill.DataQuality.Marks)
	}
	n := 0
	for k, v := range ratioMarksOf(ill) {
		if !slices.Equal(v, []string{screening.MarkIllustrative}) {
			t.Fatalf("illustrative ratio %s marked %v", k, v)
		}
		n++
	}
	if n == 0 || len(m.Ratios["AAOIFI"]["debt"]) != 1 || m.Ratios["AAOIFI"]["debt"][0] != "illustrative" {
		t.Fatalf("per-ratio labels %+v", m.Ratios)
	}

	// Filed fundamentals, illustrative closes: only the ratios over a market cap are marked.
	in = base()
	in.PriceSource = shariah.SourceIllustrative
	px := screening.Screen(in, spec, "")
	for key, mr := range px.ByMethodology {
		for _, rr := range mr.Ratios {
			onCap := strings.HasPrefix(rr.DenominatorOf, "market_cap")
			if got := slices.Contains(rr.Marks, screening.MarkIllustrative); got != onCap {
				t.Fatalf("%s/%s over %s: illustrative mark %v", key, rr.ID, rr.DenominatorOf, got)
			}
		}
	}
	if screening.MarksOf(px).Label() != "illustrative" {
		t.Fatalf("illustrative closes: %+v", screening.MarksOf(px))
	}
	// A methodology's verdict carries the marks of its own ratios: DJIM and S&P (market-cap
	// denominators) are marked, AAOIFI (total assets and revenue only) is not.
	for key, mr := range px.ByMethodology {
		onCap := false
		for _, rr := range mr.Ratios {
			onCap = onCap || strings.HasPrefix(rr.DenominatorOf, "market_cap")
		}
		got := screening.MarksOf(px).For(key)
		if (got.Label() == "illustrative") != onCap || slices.Contains(mr.Marks, screening.MarkIllustrative) != onCap {
			t.Fatalf("%s (market cap %v): For %q, by_methodology marks %v", key, onCap, got.Label(), mr.Marks)
		}
	}
	if px.ByMethodology["AAOIFI"].Marks != nil || !slices.Equal(px.ByMethodology["DJIM"].Marks, []string{screening.MarkIllustrative}) {
		t.Fatalf("methodology marks AAOIFI %v DJIM %v", px.ByMethodology["AAOIFI"].Marks, px.ByMethodology["DJIM"].Marks)
	}

	// Interest income carried from the last fiscal year: the ratios using it are marked, no other.
	in = base()
	cur := in.Fundamentals[0]
	cur.FiscalYear = 2026
	delete(cur.Facts, shariah.InterestIncome)
	fy := shariah.Fundamentals{Symbol: "TEST", PeriodEnd: "2025-12-31", Period: "FY", FiscalYear: 2025, Currency: "USD",
		Facts: map[shariah.Field]shariah.Fact{shariah.TotalRevenue: fact(1000), shariah.InterestIncome: fact(10)}}
	in.Fundamentals = []shariah.Fundamentals{fy, cur}
	cf := screening.Screen(in, spec, "")
	cm := screening.MarksOf(cf)
	if cm.Label() != "carried forward" || len(cf.DataQuality.CarriedForward) != 1 {
		t.Fatalf("carried marks %+v (carried %+v)", cm, cf.DataQuality.CarriedForward)
	}
	marked := 0
	for key, mr := range cf.ByMethodology {
		for _, rr := range mr.Ratios {
			carried := strings.HasPrefix(rr.Note, "on fiscal year")
			if got := slices.Contains(rr.Marks, screening.MarkCarriedForward); got != carried {
				t.Fatalf("%s/%s: carried mark %v, note %q", key, rr.ID, got, rr.Note)
			}
			if carried {
				marked++
			}
		}
	}
	if marked == 0 {
		t.Fatal("no ratio computed on the carried year")
	}

	// Both at once: labels in rule order.
	both := screening.MarksOf(screening.Result{DataQuality: screening.DataQuality{Illustrative: true, CarriedForward: cf.DataQuality.CarriedForward}})
	if both.Label() != "illustrative, carried forward" || both.Suffix() != " (illustrative, carried forward)" ||
		!strings.Contains(both.Sentence(), "sector profile") || !strings.Contains(both.Sentence(), "earlier fiscal year") {
		t.Fatalf("both: %q %q", both.Label(), both.Sentence())
	}

	// A screening stored before ratios carried marks still gets the screening's mark from data_quality.
	old := ill
	old.DataQuality.Marks = nil
	for key, mr := range old.ByMethodology {
		rs := slices.Clone(mr.Ratios)
		for i := range rs {
			rs[i].Marks = nil
		}
		mr.Ratios = rs
		old.ByMethodology[key] = mr
	}
	if om := screening.MarksOf(old); om.Label() != "illustrative" || len(om.Ratios) != 0 || om.For("AAOIFI").Label() != "illustrative" {
		t.Fatalf("stored screening: %+v", om)
	}

	// A market cap held back as suspect (a note says so) marks the screening.
	sus := screening.MarksOf(screening.Result{DataQuality: screening.DataQuality{Notes: []string{market.MarketCapHeldBack + " as suspect: it moves from 40000000000 to 408000000000, more than 3x between consecutive periods"}}})
	if sus.Label() != "suspect market cap" || sus.For("AAOIFI").Label() != "suspect market cap" || screening.MarkLabel(screening.MarkCarriedForward) != "carried forward" {
		t.Fatalf("suspect: %+v", sus)
	}
}
