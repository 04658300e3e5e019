package edge

import (
	"github.com/gofiber/fiber/v2"

	"github.com/shariah-screen/shariah/finance"
)

// zakatCalculate answers POST /api/zakat/calculate.
func (s *Server) zakatCalculate(c *fiber.Ctx) error {
	var req finance.ZakatRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	res, err := s.Zakat.Calculate(c.UserContext(), req)
	if err != nil {
		return err
	}
	return c.JSON(res)
}

// purificationCalculate answers POST /api/purification/calculate.
func (s *Server) purificationCalculate(c *fiber.Ctx) error {
	var req finance.PurificationRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	res, err := s.Purifier.Calculate(c.UserContext(), req)
	if err != nil {
		return err
	}
	return c.JSON(res)
}
