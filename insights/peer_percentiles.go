package insights

import (
	"context"
	"math"
	"sort"

	"github.com/shariah-screen/shariah"
)

// PeerPercentile places one ratio of a symbol among its sector peers.
type PeerPercentile struct {
	Value      *float64 `json:"value"`
	Percentile *float64 `json:"percentile"` // share of peers with a lower value (ties count half), 0-100
	PeerCount  int      `json:"peer_count"` // peers with this ratio on file
	Median     *float64 `json:"peer_median"`
	P25        *float64 `json:"peer_p25"`
	P75        *float64 `json:"peer_p75"`
}

// PeerPercentiles answers GET /api/insights/{symbol}/peer-percentiles.
type PeerPercentiles struct {
	Symbol            string                    `json:"symbol"`
	Sector            string                    `json:"sector"`
	PeriodEnd         string                    `json:"period_end"`
	Peers             int                       `json:"peers"`
	Ratios            map[string]PeerPercentile `json:"ratios"`
	Basis             string                    `json:"basis"`
	Illustrative      bool                      `json:"illustrative"`
	IllustrativePeers int                       `json:"illustrative_peers"`
	Note              string                    `json:"note,omitempty"`
}

func quantile(sorted []float64, q float64) *float64 {
	if len(sorted) == 0 {
		return nil
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	v := sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
	v = math.Round(v*1e8) / 1e8
	return &v
}

func illustrativeFacts(f shariah.Fundamentals) bool {
	for _, fact := range f.Facts {
		if fact.Source == shariah.SourceIllustrative {
			return true
		}
	}
	return false
}

// PeerPercentiles computes, from each sector peer's latest period, where each book ratio of the symbol
// sits (lower debt, interest and impure revenue are better for screening).
func (in *Service) PeerPercentiles(ctx context.Context, symbol string) (PeerPercentiles, error) {
	cat, err := in.Catalogs.Get(ctx)
	if err != nil {
		return PeerPercentiles{}, err
	}
	a, err := in.Screener.ScreenableAsset(ctx, symbol)
	if err != nil {
		return PeerPercentiles{}, err
	}
	res := PeerPercentiles{Symbol: a.Symbol, Sector: a.Sector, Ratios: map[string]PeerPercentile{},
		Basis: "latest reported period of each equity of the sector; book-value ratios (debt, cash, cash + receivables over total assets; interest income and impure revenue over revenue)"}
	bySym, err := in.sector(ctx, cat, a)
	if err != nil {
		return PeerPercentiles{}, err
	}
	self, ok := bySym[a.Symbol]
	if !ok {
		fs, err := in.Ref.Fundamentals(ctx, a.Symbol) // a symbol without a sector is not in the cache
		if err != nil {
			return PeerPercentiles{}, err
		}
		if len(fs) == 0 {
			return PeerPercentiles{}, shariah.Errorf(shariah.ENOTFOUND, "No fundamentals on file for %s.", a.Symbol)
		}
		l := LatestFundamentals(fs)
		self = peerRatios{periodEnd: l.PeriodEnd, ratios: BasicRatios(l), illustrative: illustrativeFacts(l)}
	}
	res.PeriodEnd, res.Illustrative = self.periodEnd, self.illustrative
	own := self.ratios
	values := map[string][]float64{}
	for sym, p := range bySym {
		if sym == a.Symbol {
			continue
		}
		res.Peers++
		if p.illustrative {
			res.IllustrativePeers++
		}
		for k, v := range p.ratios {
			values[k] = append(values[k], v)
		}
	}
	for _, name := range RatioNames {
		vs := values[name]
		sort.Float64s(vs)
		pp := PeerPercentile{PeerCount: len(vs), Median: quantile(vs, 0.5), P25: quantile(vs, 0.25), P75: quantile(vs, 0.75)}
		if v, ok := own[name]; ok {
			v := v
			pp.Value = &v
			if len(vs) > 0 {
				below := sort.SearchFloat64s(vs, v)
				equal := sort.SearchFloat64s(vs, math.Nextafter(v, math.Inf(1))) - below
				p := math.Round((float64(below)+float64(equal)/2)/float64(len(vs))*10000) / 100
				pp.Percentile = &p
			}
		}
		res.Ratios[name] = pp
	}
	if res.Peers == 0 {
		res.Note = "No other equity of this sector has fundamentals on file."
	}
	return res, nil
}
