package edge

import (
	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/sukuk"
)

func (s *Server) sukukSearch(c *fiber.Ctx) error {
	var v shariah.Validation
	q := sukuk.Query{Issuer: c.Query("issuer"), Country: c.Query("country"), Structure: c.Query("structure"),
		DocumentationBasis: c.Query("documentation_basis"), Currency: c.Query("currency"),
		MaturityFrom: c.Query("maturity_from"), MaturityTo: c.Query("maturity_to"),
		Limit: intQuery(c, &v, "limit", sukuk.DefaultLimit, 1, sukuk.MaxLimit), Offset: intQuery(c, &v, "offset", 0, 0, 1_000_000)}
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
	page, total := sukuk.Search(all, q)
	return c.JSON(fiber.Map{"results": s.SukukRules.Views(page), "total": total, "limit": q.Limit, "offset": q.Offset})
}

func (s *Server) sukukByISIN(c *fiber.Ctx) error {
	isin, ok := sukuk.NormalizeISIN(c.Params("isin"))
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
	lei, ok := sukuk.NormalizeLEI(c.Params("lei"))
	if !ok {
		var v shariah.Validation
		v.Add("not an LEI (ISO 17442: 20 letters or digits, valid check digits)", "value_error.lei", "path", "lei")
		return v.Err()
	}
	all, err := s.SukukStore.AllSukuk(c.UserContext())
	if err != nil {
		return err
	}
	mine := sukuk.OfIssuer(all, lei)
	if len(mine) == 0 {
		return shariah.Errorf(shariah.ENOTFOUND, "No sukuk of issuer %s in the database.", lei)
	}
	page, total := sukuk.Search(mine, sukuk.Query{Limit: sukuk.MaxLimit})
	return c.JSON(fiber.Map{"lei": lei, "issuer": mine[0].Issuer, "country": mine[0].Country, "instruments": s.SukukRules.Views(page), "total": total})
}

func (s *Server) sukukImpact(c *fiber.Ctx) error {
	var req sukuk.ImpactRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	out, err := s.SukukRules.ImpactFromStore(c.UserContext(), s.SukukStore, req.Holdings)
	if err != nil {
		return err
	}
	return c.JSON(out)
}
