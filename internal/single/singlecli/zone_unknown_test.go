package singlecli

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// storeZone gives dir's triggers of these names a stored zone this host
// does not know, as a server whose zone database has it would have
// published it: their current revisions name the zone, with the digest
// that server computes. Revisions are immutable, so the store's guard is
// lifted for the edit and put back. The triggers set no time policy.
func storeZone(t *testing.T, dir, zone string, names ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var guard, guardSQL string
	if err := db.QueryRow(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'trigger_revisions' AND sql LIKE '%BEFORE UPDATE%'`).Scan(&guard, &guardSQL); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP TRIGGER ` + guard); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		var projectID, triggerID, taskID, taskDigest, expression, misfire string
		var taskRevision, revision int64
		var enabled bool
		if err := db.QueryRow(`SELECT r.project_id, r.trigger_id, r.revision, r.task_id, r.task_revision, r.task_content_digest, r.enabled, r.expression, r.misfire_policy
			FROM trigger_revisions r JOIN triggers g ON g.id = r.trigger_id AND g.current_revision = r.revision WHERE g.name = ?`, name).
			Scan(&projectID, &triggerID, &revision, &taskID, &taskRevision, &taskDigest, &enabled, &expression, &misfire); err != nil {
			t.Fatalf("trigger %s: %v", name, err)
		}
		spec := trigger.Spec{Name: name, Enabled: enabled, Cron: trigger.Cron{Expression: expression, Timezone: zone, MisfirePolicy: trigger.MisfirePolicy(misfire)}}
		if _, err := db.Exec(`UPDATE trigger_revisions SET timezone = ?, content_digest = ? WHERE trigger_id = ? AND revision = ?`,
			zone, trigger.ContentDigest(projectID, triggerID, taskID, taskRevision, taskDigest, spec), triggerID, revision); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(guardSQL); err != nil {
		t.Fatal(err)
	}
}

// `triggers disable` of a trigger whose stored zone the zone database of
// this host lacks (a server with a newer one published it) is refused
// saying so — which zone, and what mends it: a zone database that has it
// (tzdata, ZONEINFO) or the trigger applied again with a known zone —
// never as a zone mistyped; `triggers show` shows it, its next fires said
// not worked out here and why, never refused as a zone mistyped nor
// failed as an internal error; over --api-url the server says the same.
// The way out works: `ql apply` of the triggers with a known zone
// publishes them, and they disable again.
func TestATriggersZoneThisHostLacksIsSaidSoByDisableAndShowOnTheDatabaseAndOverTheAPI(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, twinsFile)
	admin := newToken(t, dir, "boss", "admin")
	base := serveAPI(t, dir, "standalone")
	db := readOnlyDB(t, dir)
	waitCursors(t, db)
	storeZone(t, dir, "Mars/Olympus", "alpha", "bravo")
	alpha, bravo := triggerID(t, db, "alpha"), triggerID(t, db, "bravo")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	local := onDB(t, dir, "triggers", "disable", "bravo")
	for _, w := range []string{"trigger " + bravo + `: this server does not know its time zone "Mars/Olympus"`, "(the tzdata package)", "point ZONEINFO at one that has the zone",
		"or apply the trigger again with a zone this host knows"} {
		if !strings.Contains(local.err, w) {
			t.Errorf("disable on the database: exit %d %q lacks %q", local.code, local.err, w)
		}
	}
	if local.code == 0 || strings.Contains(local.err, "give an IANA zone name") {
		t.Errorf("disable on the database: exit %d %q; want it refused, not as a zone mistyped", local.code, local.err)
	}
	sameError(t, "disable", overAPI(t, base, "triggers", "disable", "alpha"), local, func(s string) string { return strings.ReplaceAll(s, alpha, bravo) })
	// The two reads' clocks are all they do not share.
	clock := regexp.MustCompile(`\(clock \S+`)
	show := onDB(t, dir, "triggers", "show", "bravo")
	if show.code != 0 || !strings.Contains(show.out, "  (none worked out here: trigger "+bravo+`: this server does not know its time zone "Mars/Olympus"`) ||
		!strings.Contains(show.out, "PASSED OVER") {
		t.Errorf("show on the database: exit %d %q %q; want the trigger shown, its next fires said not worked out here and why", show.code, show.out, show.err)
	}
	sameAs(t, "show", overAPI(t, base, "triggers", "show", "alpha"), show, func(s string) string { return clock.ReplaceAllString(s, "CLOCK") }, "bravo", "alpha", bravo, alpha)
	applyDefs(t, dir, twinsFile)
	for _, name := range []string{"alpha", "bravo"} {
		if o := onDB(t, dir, "triggers", "disable", name); o.code != 0 || !strings.Contains(o.out, "trigger "+name+": disabled as revision 3") {
			t.Errorf("disable %s after it was applied again in UTC: exit %d %q %q", name, o.code, o.out, o.err)
		}
	}
}

// `triggers list` of a trigger whose stored zone the zone database of this
// host lacks shows no next fire — the cursor a server that knew the zone
// stored is no time this one fires at — but says none is worked out here,
// in the words of the refusal: in its table (with a note naming the zone
// and what mends it), in -o json (nextFireUnknown, nextFireAtMs null) and
// over --api-url alike.
func TestTriggersListSaysTheNextFireOfAZoneThisHostLacksIsNotWorkedOut(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, twinsFile)
	admin := newToken(t, dir, "boss", "read")
	base := serveAPI(t, dir, "standalone")
	db := readOnlyDB(t, dir)
	waitCursors(t, db)
	storeZone(t, dir, "Mars/Olympus", "bravo")
	bravo := triggerID(t, db, "bravo")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	refusal := "trigger " + bravo + `: this server does not know its time zone "Mars/Olympus"`
	list := onDB(t, dir, "triggers", "list")
	row := regexp.MustCompile(`(?m)^api +bravo +.*$`).FindString(list.out)
	if list.code != 0 || !regexp.MustCompile(`Mars/Olympus +none worked out here +`).MatchString(row) ||
		!strings.Contains(list.out, "\napi/bravo: none worked out here ("+refusal) || !strings.Contains(list.out, "point ZONEINFO at one that has the zone") {
		t.Fatalf("triggers list: exit %d %q %q; want bravo's next fire said not worked out here, with why", list.code, list.out, list.err)
	}
	if !strings.Contains(list.out, "(`ql-edge apply -f FILE --data-dir "+dir+"`, or Definitions") {
		t.Errorf("triggers list %q; want the note's command as this binary, on this data directory", list.out)
	}
	if !regexp.MustCompile(`(?m)^api +alpha +.* UTC +\d{4}-`).MatchString(list.out) {
		t.Fatalf("triggers list %q; want alpha's next fire as ever", list.out)
	}
	sameAs(t, "list", overAPI(t, base, "triggers", "list"), list, nil)
	js := onDB(t, dir, "triggers", "list", "-o", "json")
	var v struct {
		Triggers []struct {
			Name            string
			NextFireAtMs    *int64
			NextFireUnknown string
		}
	}
	if err := json.Unmarshal([]byte(js.out), &v); err != nil {
		t.Fatal(err)
	}
	for _, tr := range v.Triggers {
		if unknown := tr.Name == "bravo"; unknown != strings.HasPrefix(tr.NextFireUnknown, refusal) || unknown != (tr.NextFireAtMs == nil) {
			t.Errorf("triggers list -o json: %+v; want only bravo with no next fire and the refusal", tr)
		}
	}
	sameAs(t, "list -o json", overAPI(t, base, "triggers", "list", "-o", "json"), js, nil)
}

// A server whose trigger's stored zone its host lacks fails that
// trigger's ticket each time it takes the row (its row stays due), and
// says so once at warn — naming the zone and what mends it — not once a
// round: the rounds after log it at debug.
func TestAServerWarnsOnceOfATriggersZoneItLacksNotEachRound(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, projectFile("demo", "tick"))
	storeZone(t, dir, "Mars/Olympus", "tick")
	ctx, cancel := context.WithCancel(context.Background())
	var errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql"), []string{"serve", "--data-dir", dir, "--log-level", "debug", "--stop-timeout", testStopTimeout}, &syncBuffer{}, &errOut)
	}()
	failed := regexp.MustCompile(`(?m)^.*level=(\w+) msg="scheduler ticket failed".*$`)
	// Each failure puts the row aside for 30 s (schedule.UnreadableRecheck);
	// a write that changes the row, as another process's would, ends the
	// wait, so the same revision fails again within moments.
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(20 * time.Second)
	for seen := 0; seen < 4 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		if n := len(failed.FindAllString(errOut.String(), -1)); n > seen {
			seen = n
			if _, err := db.Exec(`UPDATE trigger_schedules SET state_version = state_version + 1`); err != nil {
				t.Fatal(err)
			}
		}
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	lines := failed.FindAllStringSubmatch(errOut.String(), -1)
	var warned []string
	for _, l := range lines {
		if l[1] == "WARN" {
			warned = append(warned, l[0])
		}
	}
	if len(lines) < 4 || len(warned) != 1 || !strings.Contains(warned[0], `this server does not know its time zone \"Mars/Olympus\"`) ||
		!strings.Contains(warned[0], "reason=cron_invalid") {
		t.Fatalf("%d rounds failed the ticket, %d warned of it: %q; want one warning naming the zone over at least 4 rounds:\n%s", len(lines), len(warned), warned, errOut.String())
	}
}
