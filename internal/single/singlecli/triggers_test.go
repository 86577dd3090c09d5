package singlecli

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/view"
)

// showJSON runs `triggers show NAME -o json` and decodes it.
func showJSON(t *testing.T, dir, name string) view.TriggerDetail {
	t.Helper()
	code, out, errOut := ql(t, "triggers", "show", name, "-o", "json", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("triggers show: %d %q", code, errOut)
	}
	var d view.TriggerDetail
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("triggers show -o json printed %q: %v", out, err)
	}
	return d
}

// A paused trigger admits nothing; show says so with its note; resume
// records what fell due meanwhile as paused in the ledger; pausing twice,
// resuming a running trigger and an unknown name each say what happened.
func TestTriggersPauseShowAndResumeOnTheEmbeddedDatabase(t *testing.T) {
	t.Parallel()
	dir, db := serveSlow(t, "0")
	runIn(t, db, "succeeded")
	code, out, errOut := ql(t, "triggers", "pause", "every-second", "--note", "deploying v2", "--data-dir", dir)
	if code != 0 || !strings.HasPrefix(out, "trigger every-second: paused at ") || !strings.HasSuffix(out, "; resume it with `ql-edge triggers resume demo/every-second --data-dir "+dir+"`\n") {
		t.Fatalf("pause: %d %q %q; want the hint a command as printed", code, out, errOut)
	}
	if code, out, _ := ql(t, "triggers", "pause", "demo/every-second", "--data-dir", dir); code != 0 || !strings.Contains(out, "already paused since") || !strings.Contains(out, "deploying v2") {
		t.Fatalf("pause again: %d %q; want a no-op keeping the note", code, out)
	}
	time.Sleep(2500 * time.Millisecond)
	d := showJSON(t, dir, "every-second")
	if !d.Paused || d.PauseNote != "deploying v2" || d.PausedAtMs == nil || len(d.NextFires) != 5 || len(d.Runs) == 0 {
		t.Fatalf("show while paused: %+v", d)
	}
	var during int
	if err := db.QueryRow(`SELECT count(*) FROM runs WHERE scheduled_for_ms >= ?`, *d.PausedAtMs).Scan(&during); err != nil || during != 0 {
		t.Fatalf("%d runs (%v) were admitted for occurrences after the pause", during, err)
	}
	if code, out, _ := ql(t, "triggers", "show", "every-second", "--data-dir", dir); code != 0 || !strings.Contains(out, "paused     since") ||
		!strings.Contains(out, "none of these fires until it is resumed") || !strings.Contains(out, "UTC +00:00") {
		t.Fatalf("show: %d %q", code, out)
	}
	if code, out, errOut := ql(t, "triggers", "resume", "every-second", "--data-dir", dir); code != 0 || !strings.Contains(out, "resumed at") {
		t.Fatalf("resume: %d %q %q", code, out, errOut)
	}
	deadline := time.Now().Add(20 * time.Second)
	var paused int64
	for paused == 0 && time.Now().Before(deadline) {
		for _, e := range showJSON(t, dir, "every-second").Ledger {
			if e.Reason == "paused" {
				paused += e.Count
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if paused < 1 {
		t.Fatal("no occurrence was recorded as paused after the resume")
	}
	if code, out, _ := ql(t, "triggers", "resume", "every-second", "--data-dir", dir); code != 0 || !strings.Contains(out, "not paused; nothing changed") {
		t.Fatalf("resume a running trigger: %d %q", code, out)
	}
	if code, _, errOut := ql(t, "triggers", "pause", "nope", "--data-dir", dir); code != 1 || !strings.Contains(errOut, `no trigger named "nope"`) {
		t.Fatalf("pause an unknown trigger: %d %q", code, errOut)
	}
	var audits int
	if err := db.QueryRow(`SELECT count(*) FROM trigger_schedule_audit`).Scan(&audits); err != nil || audits != 2 {
		t.Fatalf("%d audit records (%v), want one pause and one resume", audits, err)
	}
}

// A pause note is counted in characters, as the stores count it: 600
// two-byte characters pass, 1,001 characters are refused naming the limit.
func TestAPauseNoteIsCountedInCharacters(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, _, errOut := ql(t, "apply", "-f", writeFile(t, dir, "defs.yaml", goodFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q", code, errOut)
	}
	if code, _, errOut := ql(t, "triggers", "pause", "tick", "--note", strings.Repeat("é", 1001), "--data-dir", dir); code != 2 || !strings.Contains(errOut, "1001 characters; at most 1000") {
		t.Fatalf("a note of 1001 characters: %d %q, want exit 2 naming the limit", code, errOut)
	}
	if code, out, errOut := ql(t, "triggers", "pause", "tick", "--note", strings.Repeat("é", 600), "--data-dir", dir); code != 0 || !strings.Contains(out, "paused at") {
		t.Fatalf("a note of 600 two-byte characters: %d %q %q, want it paused", code, out, errOut)
	}
}

// triggers show lists the newest --ledger entries and, when the trigger
// has older ones, says so in the table and as ledgerMore in -o json, so
// that nobody takes the newest entries for the whole ledger; the largest
// --ledger shows all of it.
func TestTriggersShowSaysWhenOlderLedgerEntriesAreNotShown(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", projectFile("demo", "tick")), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	for i := range 3 {
		if code, _, errOut := ql(t, "triggers", "disable", "tick", "--data-dir", dir); code != 0 {
			t.Fatalf("disable %d: %d %q", i, code, errOut)
		}
		time.Sleep(1100 * time.Millisecond)
		if code, _, errOut := ql(t, "triggers", "enable", "tick", "--data-dir", dir); code != 0 {
			t.Fatalf("enable %d: %d %q", i, code, errOut)
		}
	}
	// Each enable records the disabled revision's occurrences, and a
	// disable may record the enabled one's if a second began between them.
	all := showJSON(t, dir, "tick")
	n := len(all.Ledger)
	if n < 3 || all.LedgerMore {
		t.Fatalf("show: %d ledger entries, ledgerMore %t; want at least the three disables and no more", n, all.LedgerMore)
	}
	fewer := strconv.Itoa(n - 1)
	code, out, errOut := ql(t, "triggers", "show", "tick", "--ledger", fewer, "-o", "json", "--data-dir", dir)
	var d view.TriggerDetail
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || len(d.Ledger) != n-1 || !d.LedgerMore {
		t.Fatalf("show --ledger %s -o json: %d %q %q; want %s entries and ledgerMore", fewer, code, out, errOut, fewer)
	}
	code, out, errOut = ql(t, "triggers", "show", "tick", "--ledger", fewer, "--data-dir", dir)
	whole := strconv.Itoa(view.MaxLedgerShown)
	if code != 0 || !strings.Contains(out, "(older entries than these "+fewer+" are not shown: --ledger "+whole+" shows the whole ledger)") {
		t.Fatalf("show --ledger %s: %d %q %q; want the older entries said to be left out", fewer, code, out, errOut)
	}
	if code, out, _ := ql(t, "triggers", "show", "tick", "--ledger", strconv.Itoa(n), "--data-dir", dir); code != 0 || strings.Contains(out, "older entries") {
		t.Fatalf("show --ledger %d: %d %q; want no word of older entries when there are none", n, code, out)
	}
	if code, _, errOut := ql(t, "triggers", "show", "tick", "--ledger", whole, "--data-dir", dir); code != 0 {
		t.Fatalf("show --ledger %s: %d %q; want the whole ledger allowed", whole, code, errOut)
	}
	token := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone")
	url := base + "/api/v1/triggers/" + all.Trigger.TriggerID + "?ledger="
	if st, v := call(t, http.MethodGet, url+"1", token, ""); st != http.StatusOK || v["ledgerMore"] != true {
		t.Fatalf("GET ?ledger=1: %d ledgerMore %v; want true", st, v["ledgerMore"])
	}
	if st, v := call(t, http.MethodGet, url+whole, token, ""); st != http.StatusOK || v["ledgerMore"] != false {
		t.Fatalf("GET ?ledger=%s: %d ledgerMore %v; want the whole ledger and false", whole, st, v["ledgerMore"])
	}
}

// triggers show lists the last --runs Runs and, when the trigger has older
// ones, says so under them naming the listing that has them all, and as
// runsMore in -o json and the API, so that nobody takes the last Runs for
// every Run the trigger had.
func TestTriggersShowSaysWhenOlderRunsAreNotShown(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", projectFile("demo", "tick")), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	const runs = 11
	for i := range runs {
		if code, out, errOut := ql(t, "triggers", "run", "tick", "--force", "--data-dir", dir); code != 0 {
			t.Fatalf("run %d: %d %q %q", i, code, out, errOut)
		}
	}
	code, out, errOut := ql(t, "triggers", "show", "tick", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "(older runs than these 10 are not shown: `ql-edge runs list --trigger demo/tick --data-dir "+dir+"` lists them all)") {
		t.Fatalf("show of %d Runs: %d %q %q; want the oldest said to be left out", runs, code, out, errOut)
	}
	if code, out, _ := ql(t, "triggers", "show", "tick", "--runs", strconv.Itoa(runs), "--data-dir", dir); code != 0 || strings.Contains(out, "older runs") {
		t.Fatalf("show --runs %d of %d Runs: %d %q; want no word of older runs when there are none", runs, runs, code, out)
	}
	if d := showJSON(t, dir, "tick"); len(d.Runs) != 10 || !d.RunsMore {
		t.Fatalf("show -o json: %d runs, runsMore %t; want 10 and runsMore", len(d.Runs), d.RunsMore)
	}
	var all view.TriggerDetail
	code, out, errOut = ql(t, "triggers", "show", "tick", "--runs", strconv.Itoa(runs), "-o", "json", "--data-dir", dir)
	if code != 0 || json.Unmarshal([]byte(out), &all) != nil || len(all.Runs) != runs || all.RunsMore {
		t.Fatalf("show --runs %d -o json: %d %q %q; want every Run and no runsMore", runs, code, out, errOut)
	}
	token := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone")
	if st, v := call(t, http.MethodGet, base+"/api/v1/triggers/"+all.Trigger.TriggerID, token, ""); st != http.StatusOK || v["runsMore"] != true {
		t.Fatalf("GET the trigger of %d Runs: %d runsMore %v; want true, the API showing 10", runs, st, v["runsMore"])
	}
}
