package sec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// Target is one company of a run: its CIK and the symbols its data is stored under (GOOGL and GOOG
// share Alphabet's CIK and are fetched once).
type Target struct {
	CIK     string
	Symbols []string
}

// Coverage resolves the companies a run ingests (see Symbols and Indices) through the ticker map,
// which is how "US-listed" is decided: a constituent EDGAR has no ticker for (a Frankfurt or London
// listing, a delisted company) is returned in unresolved. Index constituents are canonical symbols
// (BRK-B, as the ticker map writes them); in a US index a share-class dot (BRK.B) is tried as a dash
// too, while elsewhere a dot is an exchange suffix (SAP.DE, BP.L) that must not be read as a class.
func (s *Source) Coverage(ctx context.Context, tm TickerMap) (targets []Target, unresolved []string, err error) {
	byCIK := map[string][]string{}
	add := func(cik, sym string) {
		if !slices.Contains(byCIK[cik], sym) {
			byCIK[cik] = append(byCIK[cik], sym)
		}
	}
	switch {
	case len(s.Symbols) > 0:
		for _, sym := range s.Symbols {
			n := NormalizeTicker(sym)
			if cik, ok := tm.CIK(n); ok {
				add(cik, n)
			} else {
				unresolved = append(unresolved, sym)
			}
		}
	case s.Indices:
		members, unknown, err := s.constituents(ctx, tm)
		if err != nil {
			return nil, nil, err
		}
		if len(members) == 0 && len(unknown) == 0 {
			return nil, nil, errors.New("no index is stored: load a data pack (shariah load) or set SHARIAH_SEC_SYMBOLS to a list")
		}
		for cik, syms := range members {
			for _, sym := range syms {
				add(cik, sym)
			}
		}
		unresolved = unknown
	default:
		ciks, err := s.Client.MirrorCIKs()
		if err != nil {
			return nil, nil, err
		}
		for _, cik := range ciks {
			if sym, ok := tm.Primary(cik); ok {
				add(cik, sym)
			} else {
				unresolved = append(unresolved, "CIK"+cik)
			}
		}
	}
	for cik, syms := range byCIK {
		sort.Strings(syms)
		targets = append(targets, Target{CIK: cik, Symbols: syms})
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].Symbols[0] < targets[j].Symbols[0] })
	sort.Strings(unresolved)
	return targets, unresolved, nil
}

// constituents resolves the constituents of the indices stored in Ref to CIKs (see Coverage); unknown
// are those the ticker map does not know.
func (s *Source) constituents(ctx context.Context, tm TickerMap) (byCIK map[string][]string, unknown []string, err error) {
	ixs, err := s.Ref.Indices(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("indices: %w", err)
	}
	byCIK = map[string][]string{}
	seen := map[string]bool{}
	for _, ix := range ixs {
		us := ix.Country == "" || ix.Country == "United States"
		for _, sym := range ix.Symbols {
			if seen[sym] {
				continue
			}
			seen[sym] = true
			cik, ok := tm.CIK(sym)
			if !ok && us {
				cik, ok = tm.CIK(NormalizeTicker(sym))
			}
			if ok {
				byCIK[cik] = append(byCIK[cik], sym)
			} else {
				unknown = append(unknown, sym)
			}
		}
	}
	return byCIK, unknown, nil
}
