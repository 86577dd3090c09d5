package metrics

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// promtool is Prometheus's own rule evaluator (the prometheus package):
// the example rules are evaluated by it, as Prometheus evaluates them, on
// series shaped as a scrape of a server shows them.
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is missing: CI must install the prometheus package to evaluate the example alert rules")
		}
		t.Skip("promtool is not installed (the prometheus package); the example alert rules are not evaluated")
	}
	return p
}

// situation is what a server's metrics read in one situation an alert is
// for: series (a selector, without instance and job, which every series
// gets) with their samples a minute apart in promtool's notation ("0+1x20":
// 0, 1, … 20; "_" no sample), and the alerts expected at an evaluation
// time, by their labels beyond alertname and severity (none: silent).
type situation struct {
	alert  string
	series map[string]string
	at     string
	want   []map[string]string
}

// on labels the series of one more server: its instance and job.
const onServer = `instance="ql-1:8080",job="qinglong"`

// server are the labels Prometheus gives onServer's series.
var server = map[string]string{"instance": "ql-1:8080", "job": "qinglong"}

// seriesSelector splits a series given to a situation into its metric name
// and labels.
var seriesSelector = regexp.MustCompile(`^([a-z_]+)(?:\{(.*)\})?$`)

// withServer is s with onServer's labels unless it names its instance.
func withServer(s string) string {
	m := seriesSelector.FindStringSubmatch(s)
	switch {
	case m == nil || strings.Contains(s, "instance="):
		return s
	case m[2] == "":
		return m[1] + "{" + onServer + "}"
	default:
		return m[1] + "{" + m[2] + "," + onServer + "}"
	}
}

// checkSeries fails unless every series of sit is one a server exposes
// (or Prometheus's up), with labels it has.
func checkSeries(t *testing.T, sit situation, fams map[string]family) {
	t.Helper()
	for s := range sit.series {
		m := seriesSelector.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("%s: %q is not a series", sit.alert, s)
		}
		if m[1] == "up" {
			continue
		}
		f, ok := fams[m[1]]
		if !ok {
			t.Fatalf("%s: the situation has %s, which QingLong does not expose", sit.alert, m[1])
		}
		for _, l := range matcherLabel.FindAllStringSubmatch(m[2], -1) {
			if !slices.Contains(f.labels, l[1]) && !slices.Contains(targetLabels, l[1]) {
				t.Fatalf("%s: the situation labels %s with %s, which it does not have", sit.alert, m[1], l[1])
			}
		}
	}
}

// exampleRules is a copy of alerts.yaml without annotations (promtool
// compares them whole; what a rule says is checked elsewhere) and the
// severity of each rule.
func exampleRules(t *testing.T) (string, map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(exampleDir, "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Name  string
			Rules []map[string]any
		}
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	severity := map[string]string{}
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			delete(r, "annotations")
			severity[fmt.Sprint(r["alert"])] = fmt.Sprint(r["labels"].(map[string]any)["severity"])
		}
	}
	out, err := yaml.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "alerts.yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, severity
}

// evaluate has promtool evaluate the example rules in each situation and
// fails with what it reports where an alert fires otherwise than expected.
func evaluate(t *testing.T, sits []situation) {
	t.Helper()
	bin := promtool(t)
	rules, severity := exampleRules(t)
	fams := exposedFamilies(t)
	type expAlert struct {
		ExpLabels map[string]string `yaml:"exp_labels"`
	}
	type alertTest struct {
		EvalTime  string     `yaml:"eval_time"`
		Alertname string     `yaml:"alertname"`
		ExpAlerts []expAlert `yaml:"exp_alerts"`
	}
	type inputSeries struct{ Series, Values string }
	type unitTest struct {
		Interval      string
		InputSeries   []inputSeries `yaml:"input_series"`
		AlertRuleTest []alertTest   `yaml:"alert_rule_test"`
	}
	var tests []unitTest
	for _, sit := range sits {
		if _, ok := severity[sit.alert]; !ok {
			t.Fatalf("alerts.yaml has no rule %s", sit.alert)
		}
		checkSeries(t, sit, fams)
		ut := unitTest{Interval: "1m"}
		for s, v := range sit.series {
			ut.InputSeries = append(ut.InputSeries, inputSeries{withServer(s), v})
		}
		slices.SortFunc(ut.InputSeries, func(a, b inputSeries) int { return strings.Compare(a.Series, b.Series) })
		at := alertTest{EvalTime: sit.at, Alertname: sit.alert, ExpAlerts: []expAlert{}}
		for _, w := range sit.want {
			labels := map[string]string{"severity": severity[sit.alert]}
			for k, v := range w {
				labels[k] = v
			}
			at.ExpAlerts = append(at.ExpAlerts, expAlert{labels})
		}
		ut.AlertRuleTest = []alertTest{at}
		tests = append(tests, ut)
	}
	out, err := yaml.Marshal(map[string]any{"rule_files": []string{rules}, "evaluation_interval": "1m", "tests": tests})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "situations.yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := exec.Command(bin, "test", "rules", path).CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, res)
	}
}
