package edge

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	tokens   *prometheus.CounterVec
	handler  fiber.Handler
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shariah_http_requests_total", Help: "HTTP requests by method, route template and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "shariah_http_request_duration_seconds", Help: "HTTP request latency by method and route template.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shariah_tokens_charged_total", Help: "Tokens kept after refunds, by plan.",
		}, []string{"plan"}),
	}
	reg.MustRegister(m.requests, m.latency, m.tokens)
	// The process and Go collectors are registered once per registry by the caller that owns it
	// (cmd/shariah); registering here would fail when a test builds two edges on one registry.
	m.handler = adaptor.HTTPHandler(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return m
}

// RegisterRuntimeCollectors adds the Go runtime and process collectors to a registry.
func RegisterRuntimeCollectors(reg *prometheus.Registry) {
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

func (m *metrics) observe(method, route string, status int, d time.Duration) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(d.Seconds())
}
