package singlecli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// slotsFile is a slow job under overlap allow and another under
// cancel_previous, for a server with one slot.
const slotsFile = `project: slots
tasks:
  - name: nap
    script: sleep 30
triggers:
  - {name: hog, task: nap, cron: "0 0 1 1 *", timezone: UTC}
  - {name: starve, task: nap, cron: "0 0 1 1 *", timezone: UTC, overlap: cancel_previous}
`

// With the server's one slot held, a trigger under overlap allow that
// piles up ten queued Runs is flagged as a backlog, and one under
// cancel_previous whose newest Runs were cancelled before they started is
// flagged as starving: `triggers list` names both under its table,
// `triggers show` says each on a warning line, -o json carries them as
// warnings with their codes and counts, and over the API both print what
// they print on the database. Not parallel: it sets $QL_TOKEN.
func TestABackloggedAndAStarvingTriggerAreFlaggedInTheTriggerViews(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, slotsFile)
	reader := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone", "--concurrency", "1", "--cadence", "250ms")
	runNow := func(name, request string) string {
		t.Helper()
		out := onDB(t, dir, "triggers", "run", "slots/"+name, "--request-id", request)
		id := queuedRun.FindStringSubmatch(out.out)
		if out.code != 0 || id == nil {
			t.Fatalf("triggers run %s: %d %q %q", name, out.code, out.out, out.err)
		}
		return id[1]
	}
	first := runNow("hog", "hog-0")
	deadline := time.Now().Add(15 * time.Second)
	for runJSON(t, first, "--data-dir", dir).Run.State != run.Running {
		if time.Now().After(deadline) {
			t.Fatal("the first Run did not run within 15s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() { onDB(t, dir, "runs", "cancel", first) })
	for i := range 10 {
		runNow("hog", fmt.Sprint("hog-", i+1))
	}
	for i := range 4 {
		runNow("starve", fmt.Sprint("starve-", i))
	}
	backlog := "slots/hog: backlog: 10 Runs queued; raise the server's --concurrency"
	starving := "slots/starve: starving: 3 of the newest 5 Runs were cancelled before they started (overlap: cancel_previous with the slots full)"
	list := onDB(t, dir, "triggers", "list")
	if list.code != 0 || !strings.Contains(list.out, backlog) || !strings.Contains(list.out, starving) {
		t.Fatalf("triggers list: exit %d\n%s%s\nwant the lines %q and %q", list.code, list.out, list.err, backlog, starving)
	}
	show := onDB(t, dir, "triggers", "show", "slots/starve")
	if want := "\nwarning    starving: 3 of the newest 5 Runs"; show.code != 0 || !strings.Contains(show.out, want) || strings.Contains(show.out, "backlog") {
		t.Fatalf("triggers show slots/starve: exit %d\n%s%s\nwant %q and no backlog", show.code, show.out, show.err, want)
	}
	js := onDB(t, dir, "triggers", "show", "slots/hog", "-o", "json")
	var detail struct {
		Trigger struct {
			Warnings []struct {
				Code  string
				Count int
			}
		}
	}
	if err := json.Unmarshal([]byte(js.out), &detail); err != nil || js.code != 0 || len(detail.Trigger.Warnings) != 1 ||
		detail.Trigger.Warnings[0].Code != "backlog" || detail.Trigger.Warnings[0].Count != 10 {
		t.Fatalf("triggers show slots/hog -o json: exit %d %s %s %v; want one warning, backlog of 10", js.code, js.out, js.err, err)
	}
	t.Setenv("QL_TOKEN", reader)
	nowMs := regexp.MustCompile(`"nowMs": \d+`)
	noNow := func(s string) string { return nowMs.ReplaceAllString(s, "NOW") }
	sameAs(t, "list", overAPI(t, base, "triggers", "list"), list, nil)
	sameAs(t, "show", overAPI(t, base, "triggers", "show", "slots/starve"), show, anyInstant)
	sameAs(t, "show -o json", overAPI(t, base, "triggers", "show", "slots/hog", "-o", "json"), js, noNow)
}
