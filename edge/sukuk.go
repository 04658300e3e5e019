package edge

import (
	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
)

func (s *Server) sukukSearch(c *fiber.Ctx) error {
	var v shariah.Validation
	q := shariah.SukukQuery{Issuer: c.Query("issuer"), Country: c.Query("country"), Structure: c.Query("structure"),
		DocumentationBasis: c.Query("documentation_basis"), Currency: c.Query("currency"),
		MaturityFrom: c.Query("maturity_from"), MaturityTo: c.Query("maturity_to"),
		Limit: intQuery(c, &v, "limit", shariah.DefaultSukukLimit, 1, shariah.MaxSukukLimit), Offset: intQuery(c, &v, "offset", 0, 0, 1_000_000)}
	if err := v.Err(); err != nil {
		return err
	}
	if err := q.Validate(); err != nil {
		return err
	}
	all, err := s.SukukStore.AllSukuk(c.UserContext())
	if err != nil {
		return err
	}
	page, total := shariah.SearchSukuk(all, q)
	out := make([]shariah.SukukView, 0, len(page))
	for _, sk := range page {
		out = append(out, s.SukukRules.View(sk))
	}
	return c.JSON(fiber.Map{"results": out, "total": total, "limit": q.Limit, "offset": q.Offset})
}

func (s *Server) sukukByISIN(c *fiber.Ctx) error {
	isin, ok := shariah.NormalizeISIN(c.Params("isin"))
	if !ok {
		var v shariah.Validation
		v.Add("not an ISIN (ISO 6166: 2 letters, 9 letters or digits, a valid check digit)", "value_error.isin", "path", "isin")
		return v.Err()
	}
	sk, found, err := s.SukukStore.Sukuk(c.UserContext(), isin)
	if err != nil {
		return err
	}
	if !found {
		return shariah.Errorf(shariah.ENOTFOUND, "No sukuk with ISIN %s in the database.", isin)
	}
	return c.JSON(s.SukukRules.View(sk))
}

func (s *Server) sukukByIssuer(c *fiber.Ctx) error {
	lei, ok := shariah.NormalizeLEI(c.Params("lei"))
	if !ok {
		var v shariah.Validation
		v.Add("not an LEI (ISO 17442: 20 letters or digits, valid check digits)", "value_error.lei", "path", "lei")
		return v.Err()
	}
	all, err := s.SukukStore.AllSukuk(c.UserContext())
	if err != nil {
		return err
	}
	var mine []shariah.Sukuk
	for _, sk := range all {
		if sk.IssuerLEI == lei {
			mine = append(mine, sk)
		}
	}
	if len(mine) == 0 {
		return shariah.Errorf(shariah.ENOTFOUND, "No sukuk of issuer %s in the database.", lei)
	}
	page, total := shariah.SearchSukuk(mine, shariah.SukukQuery{Limit: shariah.MaxSukukLimit})
	out := make([]shariah.SukukView, 0, len(page))
	for _, sk := range page {
		out = append(out, s.SukukRules.View(sk))
	}
	return c.JSON(fiber.Map{"lei": lei, "issuer": mine[0].Issuer, "country": mine[0].Country, "instruments": out, "total": total})
}

func (s *Server) sukukImpact(c *fiber.Ctx) error {
	var req shariah.SukukImpactRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	lookup := map[string]shariah.Sukuk{}
	for _, h := range req.Holdings {
		if _, done := lookup[h.ISIN]; done {
			continue
		}
		sk, ok, err := s.SukukStore.Sukuk(c.UserContext(), h.ISIN)
		if err != nil {
			return err
		}
		if ok {
			lookup[h.ISIN] = sk
		}
	}
	return c.JSON(s.SukukRules.PortfolioImpact(req.Holdings, lookup))
}
