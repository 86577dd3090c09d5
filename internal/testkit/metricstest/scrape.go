// Package metricstest scrapes a running server's /metrics and reads it
// with Prometheus's own text parser, so the tests check the exposition a
// Prometheus server would ingest, not the registry behind it.
package metricstest

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the parsed metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// Scrape GETs url (a /metrics address) as Prometheus would, asking for the
// text format, and parses the answer.
func Scrape(t testing.TB, url string) Families {
	t.Helper()
	return ScrapeWithToken(t, url, "")
}

// ScrapeWithToken is Scrape sending token as a bearer token, as Prometheus
// does for a server's API listener; "" sends none.
func ScrapeWithToken(t testing.TB, url, token string) Families {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close() //nolint:errcheck // the body was read in full; a close error changes nothing
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: %s", url, resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("scrape %s: content type %q, want the text format", url, ct)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape %s: the text parser refused the exposition: %v", url, err)
	}
	return fams
}

// find is the metric of family name whose labels include every pair of
// labels (name, value, name, value, ...), or nil.
func (f Families) find(name string, labels ...string) *dto.Metric {
	fam, ok := f[name]
	if !ok {
		return nil
	}
	for _, m := range fam.GetMetric() {
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
				return l.GetName() == labels[i] && l.GetValue() == labels[i+1]
			}) {
				match = false
				break
			}
		}
		if match {
			return m
		}
	}
	return nil
}

// Value is the value of the counter or gauge name with labels; a series
// that is missing fails the test.
func (f Families) Value(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	m := f.find(name, labels...)
	switch {
	case m == nil:
		t.Fatalf("no series %s%v in the scrape", name, labels)
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	}
	t.Fatalf("%s%v is neither a counter nor a gauge", name, labels)
	return 0
}

// Sum adds the counter or gauge series of name whose labels include
// labels; 0 when there are none.
func (f Families) Sum(name string, labels ...string) float64 {
	var sum float64
	fam, ok := f[name]
	if !ok {
		return 0
	}
	for _, m := range fam.GetMetric() {
		if (Families{name: &dto.MetricFamily{Metric: []*dto.Metric{m}}}).find(name, labels...) == nil {
			continue
		}
		sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return sum
}

// LabelValues lists label's value in each series of family name, in the
// order of its series.
func (f Families) LabelValues(name, label string) []string {
	var out []string
	for _, s := range f[name].GetMetric() {
		for _, l := range s.GetLabel() {
			if l.GetName() == label {
				out = append(out, l.GetValue())
			}
		}
	}
	return out
}

// Histogram is the sample count and sum of histogram name; a missing one
// fails the test.
func (f Families) Histogram(t testing.TB, name string) (count uint64, sum float64) {
	t.Helper()
	m := f.find(name)
	if m == nil || m.GetHistogram() == nil {
		t.Fatalf("no histogram %s in the scrape", name)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}
