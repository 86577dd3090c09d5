package console

import (
	"bytes"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Run page's attempts table says when each attempt started, in the
// page's zone as every time it shows, and "—" for one not started yet.
func TestTheAttemptsTableSaysWhenEachAttemptStartedInThePagesZone(t *testing.T) {
	started := int64(1_700_000_000_000) // 2023-11-14 22:13:20 UTC
	d := run.Detail{Run: run.Run{ID: "r1", State: run.Running}, Attempts: []run.Attempt{
		{Number: 1, State: run.AttemptFailed, StartedAtMs: &started},
		{Number: 2, State: run.AttemptClaimed},
	}}
	for _, l := range []string{"en", "zh"} {
		var buf bytes.Buffer
		if err := parseTemplates("ql", "")["run"].ExecuteTemplate(&buf, "layout", page{Lang: l, Zone: "Asia/Shanghai", Data: map[string]any{"D": d}}); err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(buf.String(), "</tr>")
		for i, want := range []string{`class="attempt-started"><span class="time">2023-11-15 06:13:20 UTC&#43;08:00</span></td>`, `class="attempt-started">—</td>`} {
			if !strings.Contains(rows[1+i], want) {
				t.Errorf("%s: attempt %d's row lacks %s:\n%s", l, i+1, want, rows[1+i])
			}
		}
		if !strings.Contains(rows[0], "<th>"+tr(l, "started")+"</th>") {
			t.Errorf("%s: the attempts table has no column %q:\n%s", l, tr(l, "started"), rows[0])
		}
	}
}
