package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

const manualFile = `project: demo
tasks:
  - name: quick
    script: echo manual
triggers:
  - name: hourly
    task: quick
    cron: "0 * * * *"
    timezone: UTC
    overlap: skip
`

// triggers run admits one manual Run per request id, obeys the overlap
// policy unless forced, and says what it did, in text and JSON.
func TestTriggersRunIsIdempotentPerRequestAndObeysOverlap(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", manualFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	type result struct {
		RunID   string `json:"runId"`
		Created bool   `json:"created"`
		Skipped string `json:"skipped"`
	}
	runJSON := func(args ...string) result {
		t.Helper()
		code, out, errOut := ql(t, append([]string{"triggers", "run", "hourly", "-o", "json", "--data-dir", dir}, args...)...)
		var r result
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
			t.Fatalf("triggers run %v: %d %q %q (%v)", args, code, out, errOut, err)
		}
		return r
	}
	first := runJSON("--request-id", "r1")
	again := runJSON("--request-id", "r1")
	if !first.Created || first.RunID == "" || again.Created || again.RunID != first.RunID {
		t.Fatalf("run r1 twice: %+v then %+v; want one Run, the second time found", first, again)
	}
	code, out, _ := ql(t, "triggers", "run", "demo/hourly", "--request-id", "r2", "--data-dir", dir)
	if code != 3 || !strings.Contains(out, "not run (overlap") {
		t.Fatalf("run behind an unfinished run: %d %q; want it refused by overlap: skip, exit 3", code, out)
	}
	if forced := runJSON("--request-id", "r2", "--force"); !forced.Created || forced.RunID == first.RunID {
		t.Fatalf("forced run: %+v, want a new Run", forced)
	}
	if code, _, errOut := ql(t, "triggers", "run", "hourly", "--request-id", "no spaces", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "--request-id") {
		t.Fatalf("bad request id: %d %q; want a usage error naming --request-id", code, errOut)
	}
	if code, out, _ := ql(t, "triggers", "show", "hourly", "--data-dir", dir); code != 0 || !strings.Contains(out, "overlap skip") {
		t.Fatalf("triggers show: %d %q; want the overlap policy", code, out)
	}
}

// triggers backfill admits the missing occurrences of a past window once,
// reports what it did (with the first and last occurrence, as its dry run
// does), cuts the window at --max, shows progress on long
// work and refuses reversed or future windows with what to do.
func TestTriggersBackfillAdmitsMissingOccurrencesOnceAndReports(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", manualFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	window := []string{"triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T05:00:00Z", "--data-dir", dir}
	code, out, errOut := ql(t, window...)
	if code != 0 || !strings.Contains(out, "6 occurrences from 2020-01-01T00:00:00.000Z to 2020-01-01T05:00:00.000Z, 6 admitted, 0 already had a run") {
		t.Fatalf("backfill: %d %q %q", code, out, errOut)
	}
	var again struct {
		Occurrences, Admitted, Existing int
	}
	code, out, errOut = ql(t, append(window, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), &again); code != 0 || err != nil || again.Admitted != 0 || again.Existing != 6 {
		t.Fatalf("repeated backfill: %d %q %q (%v); want nothing admitted, six existing", code, out, errOut, err)
	}
	code, out, _ = ql(t, "triggers", "backfill", "hourly", "--from", "2020-02-01T00:00:00Z", "--to", "2020-02-01T05:00:00Z", "--max", "2", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "2 occurrences from 2020-02-01T00:00:00.000Z to 2020-02-01T01:00:00.000Z, 2 admitted") || !strings.Contains(out, "continue with --from 2020-02-01T01:00:00.001Z") {
		t.Fatalf("capped backfill: %d %q; want two admitted and where to continue", code, out)
	}
	code, out, _ = ql(t, "triggers", "backfill", "hourly", "--from", "2020-02-02T00:00:00Z", "--to", "2020-02-02T00:00:00Z", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, ": 1 occurrence from 2020-02-02T00:00:00.000Z to 2020-02-02T00:00:00.000Z, 1 admitted, 0 already had a run") {
		t.Fatalf("one-occurrence backfill: %d %q; want it counted in the singular", code, out)
	}
	code, out, errOut = ql(t, "triggers", "backfill", "hourly", "--from", "2020-03-01T00:00:00Z", "--to", "2020-04-30T00:00:00Z", "--max", "1500", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "1441 occurrences from 2020-03-01T00:00:00.000Z to 2020-04-30T00:00:00.000Z, 1441 admitted") || !strings.Contains(errOut, "backfill: 1000 occurrences so far") {
		t.Fatalf("long backfill: %d %q %q; want 1441 admitted (60 days and the closing hour) with progress on stderr", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--from", "2020-01-02T00:00:00Z", "--to", "2020-01-01T00:00:00Z"}, 2, "is after --to"},
		{[]string{"--from", "2020-01-01T00:00:00Z", "--to", "2999-01-01T00:00:00Z"}, 2, "end (--to) is in the future"},
		{[]string{"--to", "2020-01-01T00:00:00Z"}, 2, "--from is required"},
		{[]string{"--from", "yesterday", "--to", "2020-01-01T00:00:00Z"}, 2, "not an RFC 3339 instant"},
	} {
		code, _, errOut := ql(t, append([]string{"triggers", "backfill", "hourly", "--data-dir", dir}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("backfill %v: %d %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// Run now and backfill of a disabled trigger are refused naming the
// trigger and the command that enables it, exiting 4: the request
// conflicts with the trigger's state.
func TestRunNowAndBackfillOfADisabledTriggerSayHowToEnableIt(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", projectFile("demo", "tick")), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := ql(t, "triggers", "disable", "tick", "--data-dir", dir); code != 0 {
		t.Fatalf("disable: %d %q", code, errOut)
	}
	want := "is disabled: nothing of it runs, run now and backfill included; enable it with `ql-edge triggers enable demo/tick --data-dir " + dir + "`"
	for _, args := range [][]string{
		{"triggers", "run", "tick", "--data-dir", dir},
		{"triggers", "backfill", "tick", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T00:00:05Z", "--data-dir", dir},
	} {
		if code, _, errOut := ql(t, args...); code != 4 || !strings.Contains(errOut, "trigger tick (") || !strings.Contains(errOut, want) {
			t.Errorf("%v: %d %q; want exit 4, refused naming the trigger and %q", args, code, errOut, want)
		}
	}
}

// triggers run tells on stderr when no server runs on the data directory
// (the Run would wait in silence until one starts), in the binary's own
// words, and says nothing of the kind while a server runs there.
func TestTriggersRunSaysWhenNoServerWillStartTheRunAndNothingWhileOneServes(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	code, out, errOut := ql(t, "triggers", "run", "hourly", "--request-id", "idle", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "queued") {
		t.Fatalf("run with no server: %d %q %q; want it queued", code, out, errOut)
	}
	want := "note: no server is running on this database (" + dir + "): the Run waits until `ql-edge serve --data-dir " + dir + "` starts there"
	if !strings.Contains(errOut, want) {
		t.Fatalf("run with no server: stderr %q; want %q", errOut, want)
	}
	for _, word := range []string{"cluster", "replica", "worker"} {
		if strings.Contains(errOut, word) {
			t.Fatalf("ql-edge's note %q mentions %q", errOut, word)
		}
	}
	serveAPI(t, dir, "standalone")
	for _, args := range [][]string{{"--request-id", "served"}, {"--request-id", "served-json", "-o", "json"}} {
		code, out, errOut := ql(t, append([]string{"triggers", "run", "hourly", "--force", "--data-dir", dir}, args...)...)
		if code != 0 || !strings.Contains(out, "served") || errOut != "" {
			t.Fatalf("run %v while a server runs: %d %q %q; want it queued and nothing on stderr", args, code, out, errOut)
		}
	}
}

// A backfill and a re-run that queue Runs with no server on the database
// say so too, counting a backfill's Runs; a dry run queues nothing and
// says nothing of it.
func TestBackfillAndRerunSayWhenNoServerWillStartTheirRuns(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	window := []string{"triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T02:00:00Z", "--data-dir", dir}
	if code, out, errOut := ql(t, append(window, "--dry-run")...); code != 0 || errOut != "" {
		t.Fatalf("backfill --dry-run: %d %q %q; want nothing on stderr", code, out, errOut)
	}
	code, out, errOut := ql(t, window...)
	want := "note: no server is running on this database (" + dir + "): the 3 Runs wait until `ql-edge serve --data-dir " + dir + "` starts there"
	if code != 0 || !strings.Contains(out, "3 admitted") || !strings.Contains(errOut, want) {
		t.Fatalf("backfill with no server: %d %q %q; want 3 admitted and %q", code, out, errOut, want)
	}
	// Cancelled, all three: the trigger's overlap policy (skip) refuses a
	// re-run while any of its Runs is unfinished.
	rows, err := readOnlyDB(t, dir).Query(`SELECT id FROM runs ORDER BY scheduled_for_ms`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if code, out, errOut := ql(t, "runs", "cancel", id, "--data-dir", dir); code != 0 {
			t.Fatalf("cancel: %d %q %q", code, out, errOut)
		}
	}
	runID := ids[0]
	code, out, errOut = ql(t, "runs", "rerun", runID, "--data-dir", dir)
	want = "note: no server is running on this database (" + dir + "): the Run waits until `ql-edge serve --data-dir " + dir + "` starts there"
	if code != 0 || !strings.Contains(errOut, want) {
		t.Fatalf("rerun with no server: %d %q %q; want %q", code, out, errOut, want)
	}
}

// A backfill cut at --max says where to continue in -o json as its text
// does: continueFrom is the --from the text report prints.
func TestABackfillCutAtMaxGivesItsContinuationInJSONAsInText(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", manualFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	for _, dry := range []bool{true, false} {
		args := []string{"triggers", "backfill", "hourly", "--from", "2020-02-01T00:00:00Z", "--to", "2020-02-01T05:00:00Z", "--max", "2", "-o", "json", "--data-dir", dir}
		if dry {
			args = append(args, "--dry-run")
		}
		var got struct {
			Truncated    bool
			ContinueFrom string
		}
		code, out, errOut := ql(t, args...)
		if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || !got.Truncated || got.ContinueFrom != "2020-02-01T01:00:00.001Z" {
			t.Fatalf("backfill --max 2 -o json (dry run %v): %d %q %q (%v); want truncated with continueFrom 2020-02-01T01:00:00.001Z", dry, code, out, errOut, err)
		}
	}
	var whole map[string]any
	code, out, errOut := ql(t, "triggers", "backfill", "hourly", "--from", "2020-03-01T00:00:00Z", "--to", "2020-03-01T01:00:00Z", "-o", "json", "--data-dir", dir)
	if err := json.Unmarshal([]byte(out), &whole); code != 0 || err != nil || whole["truncated"] != false || whole["continueFrom"] != nil {
		t.Fatalf("whole backfill -o json: %d %q %q (%v); want no continueFrom", code, out, errOut, err)
	}
}
