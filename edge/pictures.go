package edge

import (
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/svgchart"
)

// The pictures need no key: a badge or a chart is embedded in other people's pages, where no key can
// be kept secret. They read stored data only (a cached screening, the filed trajectory) and never start
// a screening, so a request costs one store read, and their ETag and Cache-Control let browsers and
// CDNs absorb repeats. They get no per-address rate limit of their own: that read is as cheap as the
// health route's, and a per-process limiter would be unfair behind a shared proxy; the operator's proxy
// limits abusive addresses for every public route alike.
const (
	// badgeMaxAge: a rescreening shows within five minutes.
	badgeMaxAge = 5 * time.Minute
	// chartMaxAge: trajectories change only when a quarter is filed.
	chartMaxAge = time.Hour
	// maxBadgeSymbol bounds the symbol a neutral badge repeats from the path.
	maxBadgeSymbol = 24
)

// badge answers a compliance badge from the cached screening: the verdict of the ruleset (or of one
// methodology). A symbol unknown, never screened, or unreadable because a store is down gets the
// neutral "not screened" badge with 200: an embedded image must not break.
func (s *Server) badge(c *fiber.Ctx) error {
	o := screening.ScreenOptions{Ruleset: c.Query("ruleset"), Methodology: c.Query("methodology")}
	rs, mid, err := s.Screener.Rulesets.Resolve(o.Ruleset, o.Methodology)
	if err != nil {
		return err
	}
	b := svgchart.Badge{Verdict: svgchart.NotScreened, Ruleset: rs.DisplayName(), RulesetID: rs.Name, Symbol: badgeSymbol(c.Params("symbol"))}
	maxAge, public := badgeMaxAge, true
	a, err := s.symbolParam(c)
	if err == nil {
		b.Symbol = a.Symbol
		var r screening.Result
		if r, err = s.Screener.Cached(c.UserContext(), a.Symbol, o); err == nil {
			b.Verdict, b.AsOf, b.Marks = r.ComplianceStatus, r.ScreenedAt.UTC().Format(time.DateOnly), screening.MarksOf(r).Label()
			if m, ok := rs.Methodology(mid); ok && mid != "" {
				b.Methodology = m.Name
				b.Marks = screening.MarksOf(r).For(screening.MethodologyKey(m.Name)).Label() // the marks on its own ratios
			}
		}
	}
	switch shariah.ErrorCode(err) {
	case "", shariah.ENOTFOUND, shariah.EVALIDATION:
	default:
		// A store outage: the neutral badge, not cached, so the verdict is back once the store is.
		if s.storeUnavailable(err) {
			s.deps.failed(DepRedis, err)
		}
		s.quiet.error("badge", "badge: stored screening unreadable", slog.String("error", err.Error()), slog.String("request_id", requestID(c)))
		maxAge, public = 0, false
	}
	return sendSVG(c, b.SVG(), maxAge, public)
}

// badgeSymbol is the path's symbol as a neutral badge repeats it: decoded, bounded.
func badgeSymbol(raw string) string {
	if s, err := url.PathUnescape(raw); err == nil {
		raw = s
	}
	if r := []rune(raw); len(r) > maxBadgeSymbol {
		raw = string(r[:maxBadgeSymbol]) + "…"
	}
	return raw
}

// trajectorySVG draws the filed trajectory (the last 8 quarters) with the threshold lines of the
// ruleset's methodology (every methodology's when none is named): the chart, or with view=sparkline one
// ratio small enough for a table.
func (s *Server) trajectorySVG(c *fiber.Ctx) error {
	var v shariah.Validation
	view := c.Query("view")
	if view == "" {
		view = "chart"
	}
	if view != "chart" && view != "sparkline" {
		v.Add("must be chart or sparkline", "value_error.view", "query", "view")
	}
	ratio := c.Query("ratio")
	if ratio != "" && !slices.Contains(insights.TrajectoryRatios, ratio) {
		v.Add("unknown ratio; valid: "+strings.Join(insights.TrajectoryRatios, ", "), "value_error.ratio", "query", "ratio")
	}
	if err := v.Err(); err != nil {
		return err
	}
	rs, mid, err := s.Screener.Rulesets.Resolve(c.Query("ruleset"), c.Query("methodology"))
	if err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	pts, err := s.Trajectory.Trajectory(c.UserContext(), a.Symbol, 8)
	if err != nil {
		return err
	}
	t := svgchart.Trajectory{Symbol: a.Symbol, Name: a.Name, Ruleset: rs.Name, Points: pts, Lines: insights.ThresholdLines(rs, mid)}
	if m, ok := rs.Methodology(mid); ok && mid != "" {
		t.Methodology = m.Name
	}
	var body []byte
	switch {
	case view == "sparkline":
		if ratio == "" {
			ratio = insights.RatioDebtAssets
		}
		body = t.Sparkline(ratio)
	default:
		if ratio != "" {
			t.Ratios = []string{ratio}
		}
		body = t.Chart()
	}
	return sendSVG(c, body, chartMaxAge, true)
}

// sendSVG writes an SVG picture with its ETag and Cache-Control (public: the same for every caller), or
// 304 when If-None-Match holds the ETag. nosniff keeps the type; the CSP forbids scripts in the picture
// should a browser open it directly.
func sendSVG(c *fiber.Ctx, body []byte, maxAge time.Duration, public bool) error {
	etag := shariah.ETag(body)
	c.Set(fiber.HeaderETag, etag)
	cc := "no-cache"
	if public {
		cc = "public, max-age=" + strconv.Itoa(int(maxAge.Seconds()))
	}
	c.Set(fiber.HeaderCacheControl, cc)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; style-src 'unsafe-inline'")
	if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" && etagMatches(inm, etag, false) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, "image/svg+xml; charset=utf-8")
	return c.Send(body)
}
