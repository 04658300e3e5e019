package edge

import (
	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/agent"
)

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
	ans, err := s.Agent.Ask(c.UserContext(), *in.Command)
	if err != nil {
		return err
	}
	return c.JSON(ans)
}
