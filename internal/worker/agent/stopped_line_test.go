package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// A worker stopped before it could register (no replica answered yet)
// still ends its log with worker_stopped, saying it had not registered:
// without it, the log of a worker stopped during an outage ended on a
// register_failed warning, as if it were still trying.
func TestAWorkerStoppedBeforeItRegisteredEndsWithItsStoppedLine(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	w := runAgent(t, in, func(c *Config) { c.Server = deadServer(t) })
	waitFor(t, "a failed registration", func() bool { return strings.Contains(w.logs.String(), "register_failed") })
	if _, err := w.stop(); err != nil {
		t.Fatalf("a worker stopped before it registered returned %v, want nil (exit 0)", err)
	}
	lines := strings.Split(strings.TrimSpace(w.logs.String()), "\n")
	var last struct {
		Code       string `json:"code"`
		Registered *bool  `json:"registered"`
		Msg        string `json:"msg"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Code != "worker_stopped" || last.Registered == nil || *last.Registered || !strings.Contains(last.Msg, "before it registered") {
		t.Fatalf("the worker's log ends with %s; want worker_stopped saying it stopped before it registered\n%s", lines[len(lines)-1], w.logs)
	}
}
