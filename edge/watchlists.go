package edge

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/screening"
)

func (s *Server) listWatchlists(c *fiber.Ctx) error {
	ws, err := s.Watchlists.Store.Watchlists(c.UserContext(), chargeOf(c).Key.UserID)
	if err != nil {
		return err
	}
	out := make([]screening.WatchlistWithStatuses, 0, len(ws))
	for _, w := range ws {
		b, err := s.Screener.WatchlistStatuses(c.UserContext(), w)
		if err != nil {
			return err
		}
		out = append(out, b)
	}
	return c.JSON(out)
}

func (s *Server) createWatchlist(c *fiber.Ctx) error {
	var in struct {
		Name    *string  `json:"name"`
		Symbols []string `json:"symbols"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	w, err := s.Watchlists.Create(c.UserContext(), chargeOf(c).Key.UserID, in.Name, in.Symbols)
	if err != nil {
		return err
	}
	return s.sendWatchlist(c, w)
}

func (s *Server) sendWatchlist(c *fiber.Ctx, w account.Watchlist) error {
	b, err := s.Screener.WatchlistStatuses(c.UserContext(), w)
	if err != nil {
		return err
	}
	return c.JSON(b)
}

func watchlistID(c *fiber.Ctx) string {
	id, err := url.PathUnescape(c.Params("watchlist_id"))
	if err != nil {
		return ""
	}
	return id
}

func (s *Server) getWatchlist(c *fiber.Ctx) error {
	w, err := s.Watchlists.Get(c.UserContext(), chargeOf(c).Key.UserID, watchlistID(c))
	if err != nil {
		return err
	}
	return s.sendWatchlist(c, w)
}

func (s *Server) deleteWatchlist(c *fiber.Ctx) error {
	if err := s.Watchlists.Delete(c.UserContext(), chargeOf(c).Key.UserID, watchlistID(c)); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"deleted": true, "id": watchlistID(c)})
}

func (s *Server) addWatchlistSymbol(c *fiber.Ctx) error {
	var in struct {
		Symbol *string `json:"symbol"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	w, err := s.Watchlists.AddSymbol(c.UserContext(), chargeOf(c).Key.UserID, watchlistID(c), in.Symbol)
	if err != nil {
		return err
	}
	return s.sendWatchlist(c, w)
}

func (s *Server) removeWatchlistSymbol(c *fiber.Ctx) error {
	raw, err := url.PathUnescape(c.Params("symbol"))
	if err != nil {
		raw = c.Params("symbol")
	}
	w, err := s.Watchlists.RemoveSymbol(c.UserContext(), chargeOf(c).Key.UserID, watchlistID(c), raw)
	if err != nil {
		return err
	}
	return s.sendWatchlist(c, w)
}
