package edge

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/shariah-screen/shariah/filings"
)

type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	tokens   *prometheus.CounterVec
	handler  fiber.Handler
	// the series of each route, method and status once looked up (a label lookup hashes its values on
	// every call; this runs on every request)
	series sync.Map // routeSeries -> *seriesOf
	plans  sync.Map // plan -> prometheus.Counter
}

type routeSeries struct {
	method, route string
	status        int
}

type seriesOf struct {
	requests prometheus.Counter
	latency  prometheus.Observer
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
	k := routeSeries{method, route, status}
	v, ok := m.series.Load(k)
	if !ok {
		v, _ = m.series.LoadOrStore(k, &seriesOf{requests: m.requests.WithLabelValues(method, route, strconv.Itoa(status)),
			latency: m.latency.WithLabelValues(method, route)})
	}
	s := v.(*seriesOf)
	s.requests.Inc()
	s.latency.Observe(d.Seconds())
}

// tokensOf is the tokens counter of a plan.
func (m *metrics) tokensOf(plan string) prometheus.Counter {
	if c, ok := m.plans.Load(plan); ok {
		return c.(prometheus.Counter)
	}
	c, _ := m.plans.LoadOrStore(plan, m.tokens.WithLabelValues(plan))
	return c.(prometheus.Counter)
}

// ingestCollector exposes the ingest sources' health, read from the store at each scrape (the
// ingesters run in another process).
type ingestCollector struct{ h filings.HealthStore }

var (
	ingestUp          = prometheus.NewDesc("shariah_ingest_up", "1 when the source's last run succeeded.", []string{"source"}, nil)
	ingestLastSuccess = prometheus.NewDesc("shariah_ingest_last_success_timestamp_seconds", "Time of the source's last successful run.", []string{"source"}, nil)
	ingestItems       = prometheus.NewDesc("shariah_ingest_items_last_run", "Items the source ingested in its last successful run.", []string{"source"}, nil)
	ingestFailures    = prometheus.NewDesc("shariah_ingest_failures_total", "Failed runs of the source.", []string{"source"}, nil)
)

func (ingestCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- ingestUp
	ch <- ingestLastSuccess
	ch <- ingestItems
	ch <- ingestFailures
}

func (c ingestCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	hs, err := c.h.Health(ctx)
	if err != nil {
		return
	}
	for _, h := range hs {
		up := 0.0
		if h.Status == "ok" {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(ingestUp, prometheus.GaugeValue, up, h.Name)
		if h.LastSuccessAt != nil {
			ch <- prometheus.MustNewConstMetric(ingestLastSuccess, prometheus.GaugeValue, float64(h.LastSuccessAt.Unix()), h.Name)
		}
		ch <- prometheus.MustNewConstMetric(ingestItems, prometheus.GaugeValue, float64(h.Items), h.Name)
		ch <- prometheus.MustNewConstMetric(ingestFailures, prometheus.CounterValue, float64(h.Failures), h.Name)
	}
}
