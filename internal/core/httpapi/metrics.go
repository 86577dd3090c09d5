package httpapi

import (
	"net/http"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// metricsPath is the metrics route's, served whether or not the server is
// ready, and to a token the store last found valid while it cannot check
// it (its route's rules, evenUnready and lastKnown).
const metricsPath = "/metrics"

// metrics serves Prometheus metrics on the API's listener, where no
// listener of their own is configured: Prometheus sends the read token as
// a bearer token (docs/monitoring has a scrape configuration).
func (a *api) metrics(w http.ResponseWriter, r *http.Request) {
	if a.Metrics == nil {
		a.writeError(w, r, qlerror.New(qlerror.NotFound, "metrics are not served here: they are off, or served on the listener --metrics-addr names").Because(RefusalMetricsNotHere))
		return
	}
	a.Metrics.ServeHTTP(w, r)
}
