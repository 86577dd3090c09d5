package console

import (
	"bytes"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A label a worker chose for itself that holds a text-direction override
// (U+202E) cannot reorder the Workers page's row: the page shows it as
// the escape \u202e, isolated in <bdi>, in both languages; and the wait a
// Run's page explains names it the same way.
func TestAWorkerLabelWithADirectionOverrideIsShownEscapedAndIsolated(t *testing.T) {
	t.Parallel()
	set := map[string]string{"zone": "eu\u202e,gpu=a100"}
	for _, l := range []string{"en", "zh"} {
		var buf bytes.Buffer
		data := []Worker{{Name: "build-01", State: "active", Sessions: 1, Labels: []map[string]string{set}}}
		if err := parseTemplates("ql", "")["workers"].ExecuteTemplate(&buf, "layout", page{Lang: l, Data: data}); err != nil {
			t.Fatal(err)
		}
		p := buf.String()
		if strings.ContainsRune(p, '\u202e') || !strings.Contains(p, `<code><bdi>zone=eu\u202e,gpu=a100</bdi></code>`) {
			t.Errorf("%s: the Workers page does not show the label escaped and isolated:\n%s", l, p)
		}
		why := waitingText(l, &run.Waiting{Reason: run.WaitNoMatchingWorker, Labels: map[string]string{"gpu": "a100"}, Workers: 1,
			WorkerLabels: []map[string]string{set}})
		if strings.ContainsRune(why, '\u202e') || !strings.Contains(why, `zone=eu\u202e,gpu=a100`) {
			t.Errorf("%s: the wait names the worker's labels as %q; want the override escaped", l, why)
		}
	}
}
