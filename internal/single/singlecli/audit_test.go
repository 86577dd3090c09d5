package singlecli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/view"
)

// triggers show prints the trigger's newest audit records, newest first,
// each with when, the action, who and the note, says when older ones
// exist, and prints stored text safely: control and text-direction
// characters escaped (a record written with SQL may hold them), a long
// note cut. -o json lists the same records, their text whole.
func TestTriggersShowPrintsTheNewestAuditRecordsNewestFirstAndSafely(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	if code, out, _ := ql(t, "triggers", "show", "yearly", "--data-dir", dir); code != 0 || !strings.Contains(out, "(never paused, resumed, enabled or disabled)") {
		t.Fatalf("show of a trigger never paused: %d %q", code, out)
	}
	for i := range 6 {
		if code, _, errOut := ql(t, "triggers", "pause", "yearly", "--note", fmt.Sprintf("freeze %d", i), "--data-dir", dir); code != 0 {
			t.Fatalf("pause %d: %d %q", i, code, errOut)
		}
		if code, _, errOut := ql(t, "triggers", "resume", "yearly", "--data-dir", dir); code != 0 {
			t.Fatalf("resume %d: %d %q", i, code, errOut)
		}
	}
	long := strings.Repeat("长", 1000)
	if code, _, errOut := ql(t, "triggers", "pause", "yearly", "--note", long, "--data-dir", dir); code != 0 {
		t.Fatalf("pause with a long note: %d %q", code, errOut)
	}
	hostile := "line 1\nline 2\x1b[2J\u202eevil"
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO trigger_schedule_audit (trigger_id, action, actor, note, at_ms)
		SELECT trigger_id, 'resume', 'ops'||char(27)||'[31m', ?, at_ms + 1 FROM trigger_schedule_audit ORDER BY id DESC LIMIT 1`, hostile); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := ql(t, "triggers", "show", "yearly", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("show: %d %q", code, errOut)
	}
	_, table, ok := strings.Cut(out, "AUDITED AT")
	if !ok {
		t.Fatalf("show prints no audit records: %q", out)
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 12 {
		t.Fatalf("audit table %q: want a header, 10 records and the line saying older ones exist", table)
	}
	want := []string{`resume  ops\x1b[31m`, "pause", "resume", "pause", "resume", "pause", "resume", "pause", "resume", "pause"}
	for i, w := range want {
		if !strings.Contains(lines[i+1], "Z  "+w) {
			t.Fatalf("audit line %d %q: want %q (newest first)", i, lines[i+1], w)
		}
	}
	if !strings.Contains(lines[1], `line 1\nline 2\x1b[2J\u202eevil`) || strings.ContainsAny(out, "\x1b\u202e") {
		t.Fatalf("the hostile record is printed %q; want its control and text-direction characters escaped", lines[1])
	}
	if !strings.HasSuffix(lines[2], strings.Repeat("长", 120)+"…") || !strings.Contains(lines[3], "-") || !strings.HasSuffix(lines[4], "freeze 5") || !strings.HasSuffix(lines[10], "freeze 2") {
		t.Fatalf("audit lines %q: want the long note cut at 120 characters, no note for a resume, and the notes of the pauses", lines[2:11])
	}
	if !strings.Contains(lines[11], "older records than these 10 are not shown") {
		t.Fatalf("the audit table ends %q; want it to say older records exist", lines[11])
	}

	d := showJSON(t, dir, "yearly")
	if len(d.Audit) != 10 || !d.AuditMore || d.AuditUnreadable {
		t.Fatalf("show -o json: audit %+v more %t unreadable %t; want the newest 10 and auditMore", d.Audit, d.AuditMore, d.AuditUnreadable)
	}
	first, second, third := d.Audit[0], d.Audit[1], d.Audit[3]
	if first.Note != hostile || first.Actor != "ops\x1b[31m" || second.Note != long || second.Action != "pause" || third.Note != "freeze 5" || d.Audit[2].Note != "" ||
		second.Actor == "" || second.Actor != third.Actor || first.AtMs != second.AtMs+1 || second.AtMs < third.AtMs {
		t.Fatalf("show -o json audit %+v; want the records whole, newest first, with who and when", d.Audit)
	}
	raw, err := json.Marshal(d.Audit[2])
	if err != nil || strings.Contains(string(raw), "note") {
		t.Fatalf("a resume's record %s (%v): want no note field", raw, err)
	}
}

// The API's view of one trigger lists its audit records like `triggers
// show -o json`: newest first, naming the token and address that paused
// and resumed it.
func TestTheAPITriggerViewListsItsAuditRecordsNewestFirst(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	_, body := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := body["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("list: %v", body)
	}
	id, _ := list[0].(map[string]any)["triggerId"].(string)
	if st, body := call(t, "POST", base+"/api/v1/triggers/"+id+"/pause", operator, `{"note":"maintenance"}`); st != 200 {
		t.Fatalf("pause: %d %v", st, body)
	}
	if st, body := call(t, "POST", base+"/api/v1/triggers/"+id+"/resume", operator, ""); st != 200 {
		t.Fatalf("resume: %d %v", st, body)
	}
	st, raw := call(t, "GET", base+"/api/v1/triggers/"+id, operator, "")
	var d view.TriggerDetail
	b, _ := json.Marshal(raw)
	if err := json.Unmarshal(b, &d); st != 200 || err != nil {
		t.Fatalf("GET trigger: %d %v %v", st, raw, err)
	}
	want := []view.AuditRecord{{Action: "resume", Actor: "api:op@127.0.0.1"}, {Action: "pause", Actor: "api:op@127.0.0.1", Note: "maintenance"}}
	if len(d.Audit) != 2 || d.AuditMore || d.AuditUnreadable || raw["auditUnreadable"] != false {
		t.Fatalf("GET trigger audit %+v (raw %v); want %+v", d.Audit, raw["audit"], want)
	}
	for i, a := range d.Audit {
		if a.Action != want[i].Action || a.Actor != want[i].Actor || a.Note != want[i].Note || a.AtMs <= 0 {
			t.Fatalf("GET trigger audit record %d %+v, want %+v", i, a, want[i])
		}
	}
}
