package singlecli

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// The commands given --api-url against a real server on the embedded
// database: each does on the server's store what it does on the database,
// and prints what it prints there. They set $QL_TOKEN, so none of these
// tests runs in parallel.

// outcome is what one command printed and how it exited.
type outcome struct {
	code     int
	out, err string
}

// overAPI runs args against the server at base, with the token in
// $QL_TOKEN.
func overAPI(t *testing.T, base string, args ...string) outcome {
	t.Helper()
	code, out, errOut := ql(t, append(args, "--api-url", base)...)
	return outcome{code, out, errOut}
}

// onDB runs args on dir's database.
func onDB(t *testing.T, dir string, args ...string) outcome {
	t.Helper()
	code, out, errOut := ql(t, append(args, "--data-dir", dir)...)
	return outcome{code, out, errOut}
}

// instant is a time as the CLI prints one.
var instant = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)

func anyInstant(s string) string { return instant.ReplaceAllString(s, "TIME") }

// location is the flag a suggested command carries to reach the database
// or the server the command that printed it reached: over the API the
// server's address, on the database its directory.
var location = regexp.MustCompile("( --(?:api-url|data-dir) [^\\s`]+)")

func anyLocation(s string) string { return location.ReplaceAllString(s, " --LOCATION") }

// sameAs fails unless remote printed and exited as local did, once every
// old word of local is replaced by its new one (swap: old, new, ...: the
// other trigger's name, the other Run's id), the location of each
// suggested command is masked, and mask, when given, has been applied to
// both.
func sameAs(t *testing.T, what string, remote, local outcome, mask func(string) string, swap ...string) {
	t.Helper()
	r := strings.NewReplacer(swap...)
	want, got := outcome{local.code, r.Replace(local.out), r.Replace(local.err)}, remote
	want.out, want.err, got.out, got.err = anyLocation(want.out), anyLocation(want.err), anyLocation(got.out), anyLocation(got.err)
	if mask != nil {
		want.out, want.err, got.out, got.err = mask(want.out), mask(want.err), mask(got.out), mask(got.err)
	}
	if got != want {
		t.Errorf("%s over the API: exit %d\n%s%s\nwant what the database path gives: exit %d\n%s%s", what, remote.code, remote.out, remote.err,
			local.code, local.out, local.err)
	}
}

// sameError fails unless both exited 1 and remote's message is local's as
// the server said it ("server: " before it), once the location of each
// suggested command is masked, and mask, when given, has been applied to
// both.
func sameError(t *testing.T, what string, remote, local outcome, mask func(string) string) {
	t.Helper()
	got, want := anyLocation(remote.err), anyLocation(local.err)
	if mask != nil {
		got, want = mask(got), mask(want)
	}
	prefix := "ql-edge: "
	if remote.code == 0 || remote.code != local.code || !strings.HasPrefix(want, prefix) || got != prefix+"server: "+strings.TrimPrefix(want, prefix) {
		t.Errorf("%s over the API: exit %d %q; want the database path's exit and its message as the server's: exit %d %q", what, remote.code, remote.err, local.code, local.err)
	}
}

// waitCursors waits until the server's first round has set every
// trigger's cursor: until then, two reads of a trigger could fall on
// either side of it.
func waitCursors(t *testing.T, db *sql.DB) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var unset int
		if err := db.QueryRow(`SELECT count(*) FROM trigger_schedules WHERE next_fire_at_ms IS NULL`).Scan(&unset); err != nil {
			t.Fatal(err)
		}
		if unset == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server's first round set no cursor within 20s")
		}
	}
}

// waitRunsEnded waits until no Run is unfinished, so that two reads see
// the same Runs in the same states.
func waitRunsEnded(t *testing.T, db *sql.DB) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var open int
		if err := db.QueryRow(`SELECT count(*) FROM runs WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if open == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d Runs still unfinished after 30s", open)
		}
	}
}

func triggerID(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var id string
	if err := db.QueryRow(`SELECT id FROM triggers WHERE name = ?`, name).Scan(&id); err != nil {
		t.Fatalf("trigger %s: %v", name, err)
	}
	return id
}

// twinsFile has two triggers alike, alpha and bravo, so a command over the
// API on one and on the database on the other meet the same state, and a
// daily one with enough occurrences in a few years to backfill in more
// than one chunk.
const twinsFile = `project: api
tasks:
  - name: noop
    script: "true"
triggers:
  - {name: alpha, task: noop, cron: "0 0 1 1 *", timezone: UTC}
  - {name: bravo, task: noop, cron: "0 0 1 1 *", timezone: UTC}
  - {name: daily, task: noop, cron: "0 0 * * *", timezone: UTC}
`

var queuedRun = regexp.MustCompile(`run (\S+) queued`)

// `triggers pause`, `resume`, `run`, `backfill`, `disable`, `enable` and
// `show` given --api-url do it on the server's store, which records the
// token and its address as who asked, and print what the database path
// prints for the same outcome: the first time (on the twin trigger), the
// second time (on the same one), with -o json, and when refused.
func TestTriggerCommandsOverTheAPIActOnTheServerAndPrintAsOnTheDatabase(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, twinsFile)
	operator, admin := newToken(t, dir, "op", "operate"), newToken(t, dir, "boss", "admin")
	base := serveAPI(t, dir, "standalone")
	db := readOnlyDB(t, dir)
	waitCursors(t, db)
	alpha := triggerID(t, db, "alpha")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)
	audited := func(action, actor string) {
		t.Helper()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM trigger_schedule_audit WHERE trigger_id = ? AND action = ? AND actor = ?`, alpha, action, actor).Scan(&n); err != nil || n != 1 {
			t.Errorf("%d %s records of alpha by %s (%v); want 1", n, action, actor, err)
		}
	}
	flag := func(column string) int {
		t.Helper()
		var v int
		if err := db.QueryRow(`SELECT `+column+` FROM trigger_schedules WHERE trigger_id = ?`, alpha).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}

	// Pause and resume.
	remote := overAPI(t, base, "triggers", "pause", "alpha", "--note", "maintenance")
	sameAs(t, "pause", remote, onDB(t, dir, "triggers", "pause", "bravo", "--note", "maintenance"), anyInstant, "bravo", "alpha")
	var pausedAt int64
	if err := db.QueryRow(`SELECT at_ms FROM trigger_schedule_audit WHERE trigger_id = ? AND action = 'pause'`, alpha).Scan(&pausedAt); err != nil {
		t.Fatal(err)
	}
	if at := time.UnixMilli(pausedAt).UTC().Format("2006-01-02T15:04:05.000Z"); flag("paused") != 1 || !strings.Contains(remote.out, "paused at "+at) {
		t.Errorf("pause over the API: %q, paused %d; want alpha paused, at the time its audit record says (%s)", remote.out, flag("paused"), at)
	}
	audited("pause", "api:op@127.0.0.1")
	sameAs(t, "pause again", overAPI(t, base, "triggers", "pause", "alpha", "--note", "other"), onDB(t, dir, "triggers", "pause", "api/alpha", "--note", "other"), nil, "api/alpha", "alpha")
	sameAs(t, "resume", overAPI(t, base, "triggers", "resume", "alpha"), onDB(t, dir, "triggers", "resume", "bravo"), anyInstant, "bravo", "alpha")
	if flag("paused") != 0 {
		t.Error("alpha is still paused after its resume over the API")
	}
	audited("resume", "api:op@127.0.0.1")
	sameAs(t, "resume again", overAPI(t, base, "triggers", "resume", "alpha"), onDB(t, dir, "triggers", "resume", "alpha"), nil)

	// Run now.
	remote = overAPI(t, base, "triggers", "run", "alpha", "--request-id", "r1")
	local := onDB(t, dir, "triggers", "run", "bravo", "--request-id", "r1")
	rm, lm := queuedRun.FindStringSubmatch(remote.out), queuedRun.FindStringSubmatch(local.out)
	if rm == nil || lm == nil {
		t.Fatalf("run now: %+v over the API, %+v on the database; want a Run queued by each", remote, local)
	}
	sameAs(t, "run now", remote, local, nil, "bravo", "alpha", lm[1], rm[1])
	var payload string
	if err := db.QueryRow(`SELECT e.payload FROM runs r JOIN run_events e ON e.run_id = r.id AND e.name = 'run.created' WHERE r.id = ? AND r.idempotency_key = ?`,
		rm[1], "ql3:manual:v1:"+alpha+":r1").Scan(&payload); err != nil || !strings.Contains(payload, `"actor":"api:op@127.0.0.1"`) {
		t.Errorf("run %s: run.created %q (%v); want alpha's manual Run of request r1, asked by the token", rm[1], payload, err)
	}
	for _, args := range [][]string{{"triggers", "run", "alpha", "--request-id", "r1"}, {"triggers", "run", "alpha", "--request-id", "r1", "-o", "json"}} {
		sameAs(t, strings.Join(args, " ")+" again", overAPI(t, base, args...), onDB(t, dir, args...), nil)
	}
	sameAs(t, "run now of a trigger that does not exist", overAPI(t, base, "triggers", "run", "nope"), onDB(t, dir, "triggers", "run", "nope"), nil)

	// Backfill: eleven New Years, admitted once; a dry run of 1500 days,
	// counted in two requests with the progress between them; a dry run
	// cut at --max; a window in the future, refused by the server.
	window := []string{"--from", "2000-01-01T00:00:00Z", "--to", "2010-01-01T00:00:00Z"}
	sameAs(t, "backfill", overAPI(t, base, append([]string{"triggers", "backfill", "alpha"}, window...)...),
		onDB(t, dir, append([]string{"triggers", "backfill", "bravo"}, window...)...), nil, "bravo", "alpha")
	var filled int
	if err := db.QueryRow(`SELECT count(*) FROM runs r JOIN run_events e ON e.run_id = r.id AND e.name = 'run.created' WHERE r.trigger_id = ? AND r.scheduled_for_ms BETWEEN ? AND ?
		AND e.payload LIKE '%"actor":"api:op@127.0.0.1"%'`, alpha, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()).Scan(&filled); err != nil || filled != 11 {
		t.Errorf("%d Runs of alpha's New Years 2000–2010 asked by the token (%v); want 11", filled, err)
	}
	for _, args := range [][]string{
		append([]string{"triggers", "backfill", "alpha", "-o", "json"}, window...),
		append([]string{"triggers", "backfill", "alpha", "--dry-run", "--max", "5"}, window...),
		{"triggers", "backfill", "daily", "--dry-run", "--max", "1500", "--from", "2000-01-01T00:00:00Z", "--to", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1499).Format(time.RFC3339)},
	} {
		remote, local := overAPI(t, base, args...), onDB(t, dir, args...)
		sameAs(t, strings.Join(args, " "), remote, local, nil)
		if remote.code != 0 {
			t.Errorf("%v over the API: %+v", args, remote)
		}
	}
	future := []string{"triggers", "backfill", "alpha", "--from", "2000-01-01T00:00:00Z", "--to", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}
	storeTime := regexp.MustCompile(`the store's time is \S+\)`)
	// The server names the API's field (toMs) where the database path names
	// the flag: each surface names its own inputs.
	sameError(t, "backfill into the future", overAPI(t, base, future...), onDB(t, dir, future...), func(s string) string {
		return strings.Replace(storeTime.ReplaceAllString(s, "NOW)"), "(toMs)", "(--to)", 1)
	})

	// Disable and enable, with an admin token.
	t.Setenv("QL_TOKEN", admin)
	for _, verb := range []string{"disable", "enable"} {
		sameAs(t, verb, overAPI(t, base, "triggers", verb, "alpha"), onDB(t, dir, "triggers", verb, "bravo"), anyInstant, "bravo", "alpha")
		if want := map[string]int{"disable": 0, "enable": 1}[verb]; flag("enabled") != want {
			t.Errorf("after %s over the API alpha's enabled is %d, want %d", verb, flag("enabled"), want)
		}
		audited(verb, "api:boss@127.0.0.1")
		sameAs(t, verb+" again", overAPI(t, base, "triggers", verb, "alpha"), onDB(t, dir, "triggers", verb, "alpha"), nil)
	}

	// Show: the pauses, runs and audit above, read by the server with its
	// clock, the one thing two reads do not share.
	waitRunsEnded(t, db)
	// The enable above leaves the cursor to the server's next round: read
	// once it has set it, or the two reads fall on either side of it.
	waitCursors(t, db)
	clock := regexp.MustCompile(`\(clock \S+|"nowMs": \d+`)
	for _, args := range [][]string{
		{"triggers", "show", "alpha"}, {"triggers", "show", "alpha", "-o", "json"}, {"triggers", "show", "api/alpha", "--runs", "3", "--ledger", "1"},
		{"triggers", "show", alpha, "--runs", "2", "-o", "json"},
	} {
		remote, local := overAPI(t, base, args...), onDB(t, dir, args...)
		sameAs(t, strings.Join(args, " "), remote, local, func(s string) string { return clock.ReplaceAllString(s, "CLOCK") })
		if remote.code != 0 || !strings.Contains(remote.out, "api:boss@127.0.0.1") {
			t.Errorf("%v over the API: %+v; want the audit of the enable", args, remote)
		}
	}
}

// `runs cancel` given --api-url cancels on the server's store, which
// records the token and its address in the Run's event, and prints what
// the database path prints: a queued Run cancelled, one cancelled before,
// a running one whose command is being stopped, and a Run that is none.
func TestRunsCancelOverTheAPICancelsOnTheServerAndPrintsAsOnTheDatabase(t *testing.T) {
	dir := installedDir(t)
	// Each command holds the only slot until it is cancelled or the test
	// ends, so the Runs after it stay queued.
	release := filepath.Join(dir, "release")
	applyDefs(t, dir, strings.Replace(quietFile, `script: "true"`, `script: "until [ -e `+release+` ]; do sleep 0.05; done"`, 1))
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone", "--concurrency", "1")
	t.Cleanup(func() { writeFile(t, dir, "release", "") })
	db := readOnlyDB(t, dir)
	trigger := triggerID(t, db, "yearly")
	runNow := func(request string) string {
		t.Helper()
		st, body := call(t, "POST", base+"/api/v1/triggers/"+trigger+"/run", operator, `{"requestId":"`+request+`"}`)
		id, _ := body["runId"].(string)
		if st != 200 || id == "" {
			t.Fatalf("run now: %d %v", st, body)
		}
		return id
	}
	state := func(id string) string {
		t.Helper()
		var s string
		if err := db.QueryRow(`SELECT state FROM runs WHERE id = ?`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	waitState := func(id, want string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); state(id) != want; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("run %s is %s after 20s, want %s", id, state(id), want)
			}
		}
	}
	cancelledBy := func(id, event string) {
		t.Helper()
		var payload string
		if err := db.QueryRow(`SELECT payload FROM run_events WHERE run_id = ? AND name = ?`, id, event).Scan(&payload); err != nil ||
			!strings.Contains(payload, `"actor":"api:op@127.0.0.1"`) {
			t.Errorf("run %s: %s %q (%v); want the token and its address as who asked", id, event, payload, err)
		}
	}
	runs := []string{runNow("r1"), runNow("r2"), runNow("r3")}
	running := runIn(t, db, "running")
	queued := slices.DeleteFunc(slices.Clone(runs), func(id string) bool { return id == running })
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)

	remote := overAPI(t, base, "runs", "cancel", queued[0])
	sameAs(t, "cancel of a queued Run", remote, onDB(t, dir, "runs", "cancel", queued[1]), nil, queued[1], queued[0])
	if remote.out != "run "+queued[0]+": cancelled\n" || state(queued[0]) != "cancelled" {
		t.Errorf("cancel of a queued Run over the API: %+v, the Run %s; want it cancelled by this request", remote, state(queued[0]))
	}
	cancelledBy(queued[0], "run.cancelled")
	sameAs(t, "cancel of a cancelled Run", overAPI(t, base, "runs", "cancel", queued[0]), onDB(t, dir, "runs", "cancel", queued[0]), nil)

	remote = overAPI(t, base, "runs", "cancel", running)
	if !strings.Contains(remote.out, "cancellation requested; it is running until the command is stopped") {
		t.Errorf("cancel of a running Run over the API: %+v; want its stop requested", remote)
	}
	cancelledBy(running, "run.cancel_requested")
	waitState(running, "cancelled")
	next := runNow("r4")
	waitState(next, "running")
	sameAs(t, "cancel of a running Run", remote, onDB(t, dir, "runs", "cancel", next), nil, next, running)
	waitState(next, "cancelled")

	none := "0193a8a0-0000-7000-8000-00000000abcd"
	sameError(t, "cancel of a Run that does not exist", overAPI(t, base, "runs", "cancel", none), onDB(t, dir, "runs", "cancel", none), nil)
}

// `notifications list` and `retry` given --api-url list the server's
// outbox as the database path does (table, -o json, filters, pages) and
// make a dead notification pending again, which the server then
// delivers; retrying it again is refused with the server's words.
func TestNotificationsOverTheAPIListAndRetryAsOnTheDatabase(t *testing.T) {
	var up atomic.Bool
	r := newReceiver(t, func(string, int) int {
		if up.Load() {
			return http.StatusOK
		}
		return http.StatusServiceUnavailable
	})
	dir, db := notifyDataDir(t, failingDefs(r.srv.URL, "down"))
	reader, operator := newToken(t, dir, "reader", "read"), newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone", "--cadence", "250ms", "--notify-backoff", "200ms", "--notify-max-attempts", "1")
	runFailing(t, dir)
	runFailing(t, dir)
	outboxState(t, db, "dead", 2, 30*time.Second)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", reader)
	for _, args := range [][]string{
		{"notifications", "list"}, {"notifications", "list", "-o", "json"}, {"notifications", "list", "--state", "dead", "--project", "alerts"},
		{"notifications", "list", "--limit", "1", "-o", "json"}, {"notifications", "list", "--state", "delivered"},
	} {
		remote := overAPI(t, base, args...)
		sameAs(t, strings.Join(args, " "), remote, onDB(t, dir, args...), nil)
		if remote.code != 0 {
			t.Errorf("%v over the API: %+v", args, remote)
		}
	}
	// The JSON page is the API's own shape, as runs list and triggers list
	// print theirs: the notifications and the next page's cursor.
	if page := overAPI(t, base, "notifications", "list", "--limit", "1", "-o", "json"); !strings.HasPrefix(page.out, "{\n  \"notifications\": [") ||
		!strings.Contains(page.out, `"next": "`) || page.err != "" {
		t.Errorf("notifications list --limit 1 -o json over the API: %+v; want {\"notifications\": [...], \"next\": ...} and nothing on stderr", page)
	}
	var dead []string
	rows, err := db.Query(`SELECT id FROM notification_outbox WHERE state = 'dead' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		dead = append(dead, id)
	}
	if err := rows.Err(); err != nil || len(dead) != 2 {
		t.Fatalf("dead notifications %v (%v); want 2", dead, err)
	}

	t.Setenv("QL_TOKEN", operator)
	up.Store(true)
	remote := overAPI(t, base, "notifications", "retry", dead[0])
	sameAs(t, "retry", remote, onDB(t, dir, "notifications", "retry", dead[1]), nil, dead[1], dead[0])
	if remote.code != 0 {
		t.Fatalf("retry over the API: %+v", remote)
	}
	outboxState(t, db, "delivered", 2, 30*time.Second)
	sameError(t, "retry of a delivered notification", overAPI(t, base, "notifications", "retry", dead[0]), onDB(t, dir, "notifications", "retry", dead[0]), nil)
}

// Every command that takes --api-url needs from the server the token
// scope its hint for a missing token names: one scope less is refused by
// the server, naming that scope, and that scope is enough. Each refuses
// plain HTTP to another host and a database beside the URL before it
// sends anything, as the first remote commands did.
func TestEveryCommandOverTheAPINeedsTheScopeItsHintNames(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	tokens := map[string]string{"read": newToken(t, dir, "reader", "read"), "operate": newToken(t, dir, "op", "operate"), "admin": newToken(t, dir, "boss", "admin")}
	below := map[string]string{"operate": "read", "admin": "operate"}
	base := serveAPI(t, dir, "standalone")
	defs := writeFile(t, t.TempDir(), "defs.yaml", quietFile)
	none := "0193a8a0-0000-7000-8000-00000000abcd"
	// The arguments of each command and its standard input; none when
	// the needed scope is enough and the command still fails (exit 1): a
	// Run, notification or secret that does not exist.
	cases := map[string]struct {
		args  []string
		none  bool
		stdin string
	}{
		"apply":               {args: []string{"-f", defs, "--dry-run"}},
		"export":              {args: []string{"api"}},
		"projects list":       {},
		"projects show":       {args: []string{"api"}},
		"runs list":           {},
		"runs show":           {args: []string{none}, none: true},
		"runs logs":           {args: []string{none}, none: true},
		"runs cancel":         {args: []string{none}, none: true},
		"runs rerun":          {args: []string{none}, none: true},
		"triggers list":       {},
		"triggers show":       {args: []string{"api/yearly"}},
		"triggers pause":      {args: []string{"api/yearly"}},
		"triggers resume":     {args: []string{"yearly"}},
		"projects pause":      {args: []string{"api"}},
		"projects resume":     {args: []string{"api"}},
		"triggers run":        {args: []string{"yearly"}},
		"triggers backfill":   {args: []string{"yearly", "--from", "2000-01-01T00:00:00Z", "--to", "2001-01-01T00:00:00Z", "--dry-run"}},
		"triggers disable":    {args: []string{"yearly"}},
		"triggers enable":     {args: []string{"yearly"}},
		"notifications list":  {},
		"notifications retry": {args: []string{none}, none: true},
		"notifications test":  {args: []string{"nope", "--project", "api"}, none: true},
		"audit list":          {},
		"backup":              {args: []string{"--archive", filepath.Join(t.TempDir(), "backup.tar.gz")}},
		"secrets list":        {},
		"secrets set":         {args: []string{"api_token"}, stdin: "some-value\n"},
		"secrets delete":      {args: []string{"never_set"}, none: true},
		"deps list":           {},
		"deps add":            {args: []string{"node", "axios"}},
		"deps rm":             {args: []string{"node", "never_added"}, none: true},
		"deps install":        {args: []string{"node"}},
		"deps mirror":         {args: []string{"node", "--registry", "https://registry.npmmirror.com"}},
	}
	// deps add installs with the server's npm: one that only says so,
	// first on the PATH the in-process server looks in.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\necho npm: done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("QL_DATA_DIR", "")
	var walk func(c *cobra.Command)
	walked := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Flags().Lookup("api-url") == nil {
			return
		}
		walked++
		path := strings.TrimPrefix(c.CommandPath(), "ql-edge ")
		tc, ok := cases[path]
		if !ok {
			t.Errorf("%s takes --api-url: give it a case here", path)
			return
		}
		args := append(strings.Fields(path), tc.args...)
		over := func(url string, extra ...string) outcome {
			code, out, errOut := qlStdin(t, tc.stdin, append(append(slices.Clone(args), extra...), "--api-url", url)...)
			return outcome{code, out, errOut}
		}
		t.Setenv("QL_TOKEN", "")
		missing := over(base)
		m := regexp.MustCompile("tokens create NAME --scope (\\w+)`").FindStringSubmatch(missing.err)
		if missing.code != 2 || m == nil {
			t.Errorf("%s without $QL_TOKEN: %+v; want the scope it needs named in the command that makes a token", path, missing)
			return
		}
		scope := m[1]
		t.Setenv("QL_TOKEN", tokens["read"])
		for _, plain := range []string{"http://192.0.2.1:8080", "http://ql.example.com"} {
			if o := over(plain); o.code != 2 || !strings.Contains(o.err, "plain HTTP to another host") {
				t.Errorf("%s --api-url %s: %+v; want the clear-text token refused", path, plain, o)
			}
		}
		if o := over(base, "--data-dir", dir); o.code != 2 || !strings.Contains(o.err, "not both") {
			t.Errorf("%s --api-url --data-dir: %+v; want one of the two asked for", path, o)
		}
		if less, ok := below[scope]; ok {
			t.Setenv("QL_TOKEN", tokens[less])
			o := over(base)
			if want := fmt.Sprintf("needs a token of scope %s; token %q has scope %s", scope, map[string]string{"read": "reader", "operate": "op"}[less], less); o.code != 5 || !strings.Contains(o.err, want) {
				t.Errorf("%s with a %s token: %+v; want the server's refusal saying %q, exit 5 (not allowed)", path, less, o, want)
			}
		}
		t.Setenv("QL_TOKEN", tokens[scope])
		o := over(base)
		if strings.Contains(o.err, "needs a token of scope") || o.code != map[bool]int{false: 0, true: 1}[tc.none] {
			t.Errorf("%s with a %s token: %+v; want the scope its hint names to be enough", path, scope, o)
		}
	}
	walk(cli.NewRoot(Options("ql-edge")))
	if walked != len(cases) {
		t.Errorf("%d commands take --api-url, %d cases; want one case each", walked, len(cases))
	}
}
