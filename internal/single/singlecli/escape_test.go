package singlecli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// directionControls are the characters that make a terminal show the text
// around them in another order: marks, embeddings, overrides, isolates.
var directionControls = []rune{'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'}

// Free text holding every text-direction character (a run event's payload
// and an audit record's actor and note written with SQL, which no command
// validates, and the path of a definitions file) is printed with each
// character escaped, never as itself, in the tables of `ql-edge runs show`
// and `triggers show`, in apply's message and in the error line; -o json
// carries it as stored.
func TestStoredTextIsPrintedWithItsTextDirectionControlsEscaped(t *testing.T) {
	t.Parallel()
	var text, escaped strings.Builder
	for _, r := range directionControls {
		text.WriteString("x" + string(r))
		fmt.Fprintf(&escaped, `x\u%04x`, r)
	}
	hostile, want := text.String(), escaped.String()
	printsEscaped := func(what, out string) {
		t.Helper()
		if !strings.Contains(out, want) || strings.ContainsAny(out, string(directionControls)) {
			t.Errorf("%s printed %q; want %q, each text-direction character as its escape", what, out, want)
		}
	}

	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	code, out, errOut := ql(t, "triggers", "run", "yearly", "-o", "json", "--data-dir", dir)
	var queued struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal([]byte(out), &queued); code != 0 || err != nil || queued.RunID == "" {
		t.Fatalf("triggers run: %d %q %q (%v)", code, out, errOut, err)
	}
	if code, _, errOut := ql(t, "triggers", "pause", "yearly", "--note", "plain", "--data-dir", dir); code != 0 {
		t.Fatalf("pause: %d %q", code, errOut)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO run_events (run_id, seq, name, payload, created_at_ms)
		SELECT run_id, max(seq) + 1, 'run.noted', json_object('actor', ?), max(created_at_ms) FROM run_events WHERE run_id = ?`, hostile, queued.RunID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO trigger_schedule_audit (trigger_id, action, actor, note, at_ms)
		SELECT trigger_id, 'resume', ?, ?, at_ms + 1 FROM trigger_schedule_audit ORDER BY id DESC LIMIT 1`, hostile, hostile); err != nil {
		t.Fatal(err)
	}

	code, out, errOut = ql(t, "runs", "show", queued.RunID, "--data-dir", dir)
	if code != 0 {
		t.Fatalf("runs show: %d %q", code, errOut)
	}
	printsEscaped("runs show", out)
	code, out, errOut = ql(t, "triggers", "show", "yearly", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("triggers show: %d %q", code, errOut)
	}
	printsEscaped("triggers show", out)
	if strings.Count(out, want) != 2 {
		t.Errorf("triggers show printed %q; want the actor and the note of the audit record, each escaped", out)
	}
	if code, out, errOut = ql(t, "runs", "show", queued.RunID, "-o", "json", "--data-dir", dir); code != 0 || !strings.Contains(out, hostile) {
		t.Errorf("runs show -o json: %d %q %q; want the payload as stored", code, out, errOut)
	}
	if d := showJSON(t, dir, "yearly"); len(d.Audit) == 0 || d.Audit[0].Actor != hostile || d.Audit[0].Note != hostile {
		t.Errorf("triggers show -o json audit %+v; want the newest record as stored", d.Audit)
	}

	named := filepath.Join(dir, "defs"+hostile+".yaml")
	if err := os.WriteFile(named, []byte(quietFile), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = ql(t, "apply", "--dry-run", "-f", named, "--data-dir", dir)
	if code != 0 {
		t.Fatalf("apply --dry-run: %d %q", code, errOut)
	}
	printsEscaped("apply --dry-run", out)
	code, _, errOut = ql(t, "apply", "-f", filepath.Join(dir, "missing"+hostile+".yaml"), "--data-dir", dir)
	if code != 2 {
		t.Fatalf("apply of a missing file: exit %d %q; want 2, the path given being wrong", code, errOut)
	}
	printsEscaped("the error line of apply", errOut)
}
