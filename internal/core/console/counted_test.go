package console

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The overview counts the Runs of the last 24 hours, and those its
// admission lag measured, with one Run in the singular in English ("1 run
// counted", never "1 runs counted") and the number in the sentence in
// Chinese, which has no plural.
func TestTheOverviewCountsOneRunInTheSingularInEnglishAndChinese(t *testing.T) {
	tmpl := parseTemplates("ql", "")["overview"]
	for _, c := range []struct {
		lang string
		n    int
		want []string
	}{
		{"en", 1, []string{`<p id="counted">1 run counted</p>`, `p99 1s (1 run counted)</dd>`}},
		{"en", 2, []string{`<p id="counted">2 runs counted</p>`, `p99 1s (2 runs counted)</dd>`}},
		{"zh", 1, []string{`<p id="counted">1 条运行</p>`, `p99 1s（1 条运行）</dd>`}},
		{"zh", 2, []string{`<p id="counted">2 条运行</p>`, `p99 1s（2 条运行）</dd>`}},
	} {
		var buf bytes.Buffer
		p := page{Lang: c.lang, Data: overviewData{Counted: c.n, Lag: &lag{N: c.n, P50: time.Second, P99: time.Second}}}
		if err := tmpl.ExecuteTemplate(&buf, "layout", p); err != nil {
			t.Fatal(err)
		}
		for _, want := range c.want {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%s overview of %d Runs lacks %q", c.lang, c.n, want)
			}
		}
	}
}
