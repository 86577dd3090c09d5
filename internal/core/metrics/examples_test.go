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

// exposedNames are the names a scrape of every metric shows, histogram
// series (_bucket, _sum, _count) included. The store reads are answered
// by fixed functions: this test is about names, not values.
func exposedNames(t *testing.T) []string {
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
	m.RetentionLoop()
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fams {
		names = append(names, f.GetName())
		if f.GetType().String() == "HISTOGRAM" {
			names = append(names, f.GetName()+"_bucket", f.GetName()+"_sum", f.GetName()+"_count")
		}
	}
	return names
}

// checkExpr fails when expr names no metric or one no scrape shows.
func checkExpr(t *testing.T, where, expr string, names []string) {
	t.Helper()
	used := metricName.FindAllString(expr, -1)
	if len(used) == 0 {
		t.Errorf("%s: %q names no QingLong metric", where, expr)
	}
	for _, n := range used {
		if !slices.Contains(names, n) {
			t.Errorf("%s: %q uses %s, which QingLong does not expose", where, expr, n)
		}
	}
}

// The example Grafana dashboard is valid JSON, and every query of every
// panel uses only metrics QingLong exposes.
func TestTheExampleDashboardUsesOnlyMetricsThatExist(t *testing.T) {
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
	names := exposedNames(t)
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			checkExpr(t, "panel "+p.Title, q.Expr, names)
		}
	}
}

// The example alert rules are a valid Prometheus rule file: every rule is
// named, has an expression using only metrics QingLong exposes, a severity
// and a summary.
func TestTheExampleAlertRulesUseOnlyMetricsThatExist(t *testing.T) {
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
	names := exposedNames(t)
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
			checkExpr(t, "alert "+r.Alert, r.Expr, names)
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
