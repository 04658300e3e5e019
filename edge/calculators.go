package edge

import (
	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/agent"
)

func (s *Server) zakat() *shariah.Zakat {
	return &shariah.Zakat{Ref: s.Ref, Disclaimers: s.Education.DisclaimersFor}
}

// zakatCalculate answers POST /api/zakat/calculate.
func (s *Server) zakatCalculate(c *fiber.Ctx) error {
	var req shariah.ZakatRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	res, err := s.zakat().Calculate(c.UserContext(), req)
	if err != nil {
		return err
	}
	return c.JSON(res)
}

// purificationCalculate answers POST /api/purification/calculate.
func (s *Server) purificationCalculate(c *fiber.Ctx) error {
	var req shariah.PurificationRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	p := &shariah.Purifier{Ref: s.Ref, Screener: s.Screener, Disclaimers: s.Education.DisclaimersFor}
	res, err := p.Calculate(c.UserContext(), req)
	if err != nil {
		return err
	}
	return c.JSON(res)
}

func (s *Server) agent() *agent.Agent {
	return &agent.Agent{LLM: s.AgentLLM, Tools: agent.Tools{Screener: s.Screener, Ref: s.Ref, Catalogs: s.catalogs,
		Zakat: s.zakat(), Insights: s.insights, News: s.News}}
}

// terminalAgent answers POST /api/terminal/agent {command}.
func (s *Server) terminalAgent(c *fiber.Ctx) error {
	var in struct {
		Command *string `json:"command"`
		Query   *string `json:"query"` // accepted as a synonym
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	if in.Command == nil {
		in.Command = in.Query
	}
	var v shariah.Validation
	switch {
	case in.Command == nil:
		v.Add("field required", "value_error.missing", "body", "command")
	case len(*in.Command) > agent.MaxInput:
		v.Add("at most 500 characters", "value_error.any_str.max_length", "body", "command")
	}
	if err := v.Err(); err != nil {
		return err
	}
	ans, err := s.agent().Ask(c.UserContext(), *in.Command)
	if err != nil {
		return err
	}
	return c.JSON(ans)
}
