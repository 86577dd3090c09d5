package metrics

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// exampleDir holds the example dashboard and alert rules.
var exampleDir = filepath.Join("..", "..", "..", "docs", "monitoring")

// metricName matches the metric names of this package and of the Go and
// process collectors in a PromQL expression.
var metricName = regexp.MustCompile(`\b(?:qinglong|go|process)_[a-z0-9_]+\b`)

// family is one metric a scrape shows: its type and its label names
// (histogram series carry le on _bucket).
type family struct {
	typ    string
	labels []string
	// histogram names the histogram a _bucket, _sum or _count series is of.
	histogram string
}

// exposedFamilies are the metrics a scrape of a cluster replica shows
// with every optional series set (a single-node server's are a subset:
// no worker, pool or database server series), histogram series (_bucket,
// _sum, _count) included. The store reads are answered by fixed
// functions: this is about names, types and labels, not values.
func exposedFamilies(t *testing.T) map[string]family {
	t.Helper()
	m := New(Config{
		Profile: "cluster",
		Monitor: func(context.Context, int) (schedule.MonitorSnapshot, error) {
			return schedule.MonitorSnapshot{}, nil
		},
		Workers:      func(context.Context) (int, int, error) { return 0, 0, nil },
		Unplaceable:  func(context.Context, int) (int, error) { return 0, nil },
		WorkerStates: func(context.Context, int) (map[string]int, error) { return nil, nil },
		Readiness:    func() string { return StateReady },
		PerTrigger:   1,
		TriggerActivity: func(context.Context, int) (schedule.TriggerActivitySnapshot, error) {
			next := int64(1)
			return schedule.TriggerActivitySnapshot{Eligible: 1, Triggers: []schedule.TriggerActivity{{Project: "p", Trigger: "t", NextFireAtMs: &next}}}, nil
		},
		AuthFailures: func() map[string]authlimit.Failures {
			return map[string]authlimit.Failures{SurfaceAPI: {}, SurfaceConsole: {}, SurfaceWorker: {}}
		},
	})
	m.AddStorage(Storage{
		DatabaseBytes:    func(context.Context) (int64, error) { return 0, nil },
		RunLogsBytes:     func(context.Context) (int64, error) { return 0, nil },
		DataDirFreeBytes: func() (int64, error) { return 0, nil },
	})
	m.AddPool(func() (PoolStat, bool) { return PoolStat{Max: 17}, true })
	m.DatabaseServerReached(DatabaseServer{Address: "db:5432"})
	m.RetentionLoop()
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]family{}
	for _, f := range fams {
		var labels []string
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if !slices.Contains(labels, l.GetName()) {
					labels = append(labels, l.GetName())
				}
			}
		}
		slices.Sort(labels)
		typ := strings.ToLower(f.GetType().String())
		out[f.GetName()] = family{typ, labels, ""}
		if typ == "histogram" {
			out[f.GetName()+"_bucket"] = family{"counter", append(slices.Clone(labels), "le"), f.GetName()}
			out[f.GetName()+"_sum"] = family{"counter", labels, f.GetName()}
			out[f.GetName()+"_count"] = family{"counter", labels, f.GetName()}
		}
	}
	return out
}

// The PromQL shapes checkExpr reads: a selector's label matchers, the
// metric a range function reads, and the labels of a grouping.
var (
	selector     = regexp.MustCompile(`\b((?:qinglong|go|process)_[a-z0-9_]+)\{([^}]*)\}`)
	matcherLabel = regexp.MustCompile(`([a-z_]+)\s*(?:=~|!~|!=|=)`)
	counterFunc  = regexp.MustCompile(`\b(rate|irate|increase|resets)\(\s*([a-z_][a-z0-9_]*)`)
	gaugeFunc    = regexp.MustCompile(`\b(deriv|predict_linear|delta|max_over_time|min_over_time)\(\s*([a-z_][a-z0-9_]*)`)
	grouping     = regexp.MustCompile(`\b(?:by|on|without|ignoring)\s*\(([^)]*)\)`)
)

// targetLabels are the labels Prometheus gives every scraped series.
var targetLabels = []string{"instance", "job"}

// checkExpr fails when expr names no metric or one no scrape shows, matches
// or groups on a label its metrics do not have, takes a rate of a gauge or
// a derivative of a counter.
func checkExpr(t *testing.T, where, expr string, fams map[string]family) {
	t.Helper()
	used := metricName.FindAllString(expr, -1)
	if len(used) == 0 {
		t.Errorf("%s: %q names no QingLong metric", where, expr)
	}
	labels := slices.Clone(targetLabels)
	for _, n := range used {
		f, ok := fams[n]
		if !ok {
			t.Errorf("%s: %q uses %s, which QingLong does not expose", where, expr, n)
			continue
		}
		labels = append(labels, f.labels...)
	}
	for _, m := range selector.FindAllStringSubmatch(expr, -1) {
		for _, l := range matcherLabel.FindAllStringSubmatch(m[2], -1) {
			if f, ok := fams[m[1]]; ok && !slices.Contains(f.labels, l[1]) && !slices.Contains(targetLabels, l[1]) {
				t.Errorf("%s: %q matches label %s, which %s does not have (it has %v)", where, expr, l[1], m[1], f.labels)
			}
		}
	}
	for _, m := range grouping.FindAllStringSubmatch(expr, -1) {
		for l := range strings.SplitSeq(m[1], ",") {
			if l = strings.TrimSpace(l); l != "" && !slices.Contains(labels, l) {
				t.Errorf("%s: %q groups on label %s, which none of its metrics has", where, expr, l)
			}
		}
	}
	for _, m := range counterFunc.FindAllStringSubmatch(expr, -1) {
		if f, ok := fams[m[2]]; ok && f.typ != "counter" {
			t.Errorf("%s: %q takes %s of %s, a %s: only counters make sense there", where, expr, m[1], m[2], f.typ)
		}
	}
	for _, m := range gaugeFunc.FindAllStringSubmatch(expr, -1) {
		if f, ok := fams[m[2]]; ok && f.typ != "gauge" {
			t.Errorf("%s: %q takes %s of %s, a %s: use rate or increase", where, expr, m[1], m[2], f.typ)
		}
	}
}

// The example Grafana dashboard is valid JSON, and every query of every
// panel uses only metrics QingLong exposes, with labels they have, and
// takes rates and increases of counters only.
func TestTheExampleDashboardUsesOnlyMetricsAndLabelsThatExistAndRatesOfCounters(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(exampleDir, "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	if dash.Title == "" || len(dash.Panels) < 8 {
		t.Fatalf("the dashboard %q has %d panels; its shape may have changed", dash.Title, len(dash.Panels))
	}
	fams := exposedFamilies(t)
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			checkExpr(t, "panel "+p.Title, q.Expr, fams)
		}
	}
}

// The example alert rules are a valid Prometheus rule file: every rule is
// named, has an expression using only metrics QingLong exposes, with
// labels they have, rates and increases of counters only, a severity and
// a summary.
func TestTheExampleAlertRulesUseOnlyMetricsAndLabelsThatExistAndRatesOfCounters(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(exampleDir, "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Name  string
			Rules []struct {
				Alert       string
				Expr        string
				For         string
				Labels      map[string]string
				Annotations map[string]string
			}
		}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	fams := exposedFamilies(t)
	rules := 0
	for _, g := range file.Groups {
		if g.Name == "" {
			t.Error("a rule group has no name")
		}
		for _, r := range g.Rules {
			rules++
			if r.Alert == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %q lacks a name, a severity label or a summary", r.Alert)
			}
			checkExpr(t, "alert "+r.Alert, r.Expr, fams)
		}
	}
	if rules < 8 {
		t.Fatalf("alerts.yaml holds %d rules; its shape may have changed", rules)
	}
}

// Every example rule on a trigger's staleness (its last success or last
// Run) leaves paused triggers out, which have neither by design: each
// ends in "unless" on qinglong_trigger_paused == 1, matched on the
// trigger's labels.
func TestTheExamplePerTriggerRulesLeavePausedTriggersOut(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(exampleDir, "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []struct{ Alert, Expr string }
		}
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	const unpaused = " unless on (project, trigger) max by (project, trigger) (qinglong_trigger_paused) == 1"
	stale := 0
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if !strings.Contains(r.Expr, "qinglong_trigger_last_") {
				continue
			}
			stale++
			if !strings.HasSuffix(strings.TrimSpace(r.Expr), unpaused) {
				t.Errorf("rule %s fires for paused triggers: %q does not end in %q", r.Alert, r.Expr, unpaused)
			}
		}
	}
	if stale < 3 {
		t.Fatalf("alerts.yaml holds %d rules on a trigger's staleness; its shape may have changed", stale)
	}
}
