package metrics

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// documentedMetric is a row of the metrics table of docs/operations.md.
type documentedMetric struct {
	typ    string
	labels []string
}

// quoted finds the names a table cell puts in backquotes.
var quoted = regexp.MustCompile("`([a-z_]+)`")

// documentedMetrics reads the metrics table of docs/operations.md: a row
// may name several metrics of one type; a labels cell ending in "(the
// second)" gives its labels to the second only.
func documentedMetrics(t *testing.T) map[string]documentedMetric {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]documentedMetric{}
	// Only the table under the metrics header: refusal reasons elsewhere
	// may start with the same prefix.
	inTable := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if line == "| metric | type | labels | what |" {
			inTable = true
			continue
		}
		if inTable && !strings.HasPrefix(line, "|") {
			break
		}
		if !inTable || !strings.HasPrefix(line, "| `qinglong_") {
			continue
		}
		cols := strings.Split(strings.Trim(line, "| "), "|")
		if len(cols) < 4 {
			t.Fatalf("docs/operations.md: a metrics row has %d columns, want 4: %s", len(cols), line)
		}
		var labels []string
		for _, m := range quoted.FindAllStringSubmatch(cols[2], -1) {
			labels = append(labels, m[1])
		}
		slices.Sort(labels)
		for i, m := range quoted.FindAllStringSubmatch(cols[0], -1) {
			l := labels
			if strings.Contains(cols[2], "(the second)") && i == 0 {
				l = nil
			}
			out[m[1]] = documentedMetric{strings.TrimSpace(cols[1]), l}
		}
	}
	return out
}

// Every qinglong_ metric a server exposes has its row in the metrics table
// of docs/operations.md, with its type and exactly its labels, and every
// row names a metric a server exposes: an operator writing rules from the
// table writes them against what a scrape shows.
func TestTheOperationsMetricsTableDescribesEveryExposedMetricWithItsTypeAndLabels(t *testing.T) {
	docs := documentedMetrics(t)
	fams := exposedFamilies(t)
	for name, f := range fams {
		if !strings.HasPrefix(name, Namespace+"_") || f.histogram != "" {
			continue
		}
		d, ok := docs[name]
		switch {
		case !ok:
			t.Errorf("%s (%s, labels %v) is exposed but docs/operations.md's metrics table has no row for it", name, f.typ, f.labels)
		case d.typ != f.typ:
			t.Errorf("docs/operations.md says %s is a %s; it is exposed as a %s", name, d.typ, f.typ)
		case !slices.Equal(d.labels, f.labels):
			t.Errorf("docs/operations.md gives %s the labels %v; it is exposed with %v", name, d.labels, f.labels)
		}
	}
	for name := range docs {
		if _, ok := fams[name]; !ok {
			t.Errorf("docs/operations.md describes %s, which no server exposes", name)
		}
	}
}
