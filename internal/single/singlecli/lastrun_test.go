package singlecli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// lastRunOf is one trigger of `triggers list -o json` (or the trigger of
// `triggers show -o json`) as the last-run test reads it.
type lastRunOf struct {
	Name    string
	LastRun *struct {
		ID             string
		State          string
		ScheduledForMs int64
		FinishedAtMs   *int64
	}
}

// `triggers list` on the embedded database shows each trigger's newest
// Run — its state and when it was scheduled, "-" for a trigger that never
// ran — and -o json carries it as lastRun (id, state, scheduledForMs,
// finishedAtMs once it ended), as does the trigger of `triggers show -o
// json`; given --api-url, both print what they print on the database, on a
// server of the edge profile.
func TestTriggersListShowsEachTriggersLastRunOnTheDatabaseAndOverTheAPI(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, twinsFile)
	reader := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "edge")
	db := readOnlyDB(t, dir)
	waitCursors(t, db)
	t.Setenv("QL_DATA_DIR", "")
	first := queuedRun.FindStringSubmatch(onDB(t, dir, "triggers", "run", "alpha", "--request-id", "first").out)
	second := queuedRun.FindStringSubmatch(onDB(t, dir, "triggers", "run", "alpha", "--request-id", "second").out)
	if first == nil || second == nil {
		t.Fatalf("triggers run alpha: %v %v; want two Runs queued", first, second)
	}
	waitRunsEnded(t, db)
	t.Setenv("QL_TOKEN", reader)

	list := onDB(t, dir, "triggers", "list")
	alpha := regexp.MustCompile(`(?m)^api +alpha +.*$`).FindString(list.out)
	if list.code != 0 || !strings.Contains(list.out, " LAST RUN ") || strings.Contains(list.out, "LAST SCHEDULED") ||
		!regexp.MustCompile(`UTC +\S+ +succeeded `+instant.String()+` +-$`).MatchString(alpha) ||
		!regexp.MustCompile(`(?m)^api +bravo +.* UTC +\S+ +- +-$`).MatchString(list.out) {
		t.Fatalf("triggers list: exit %d\n%s%s\nwant alpha's last run succeeded with its time, and bravo's -", list.code, list.out, list.err)
	}
	sameAs(t, "list", overAPI(t, base, "triggers", "list"), list, nil)

	js := onDB(t, dir, "triggers", "list", "-o", "json")
	var page struct{ Triggers []lastRunOf }
	if err := json.Unmarshal([]byte(js.out), &page); err != nil || js.code != 0 {
		t.Fatalf("triggers list -o json: exit %d %q %q %v", js.code, js.out, js.err, err)
	}
	for _, tr := range page.Triggers {
		switch l := tr.LastRun; {
		case tr.Name == "alpha" && (l == nil || l.ID != second[1] || l.State != "succeeded" || l.ScheduledForMs == 0 || l.FinishedAtMs == nil):
			t.Errorf("alpha's lastRun %+v; want its newest Run %s, succeeded, with its scheduled and finish times", l, second[1])
		case tr.Name != "alpha" && l != nil:
			t.Errorf("%s never ran, but its lastRun is %+v", tr.Name, l)
		}
	}
	if strings.Contains(js.out, `"lastRun": null`) || strings.Contains(js.out, "lastRunsUnknown") {
		t.Errorf("triggers list -o json %s; want lastRun left out where there is none", js.out)
	}
	sameAs(t, "list -o json", overAPI(t, base, "triggers", "list", "-o", "json"), js, nil)

	show := onDB(t, dir, "triggers", "show", "alpha", "-o", "json")
	var detail struct{ Trigger lastRunOf }
	if err := json.Unmarshal([]byte(show.out), &detail); err != nil || show.code != 0 || detail.Trigger.LastRun == nil || detail.Trigger.LastRun.ID != second[1] {
		t.Fatalf("triggers show alpha -o json: exit %d %q %q; want its trigger's lastRun %s", show.code, show.out, show.err, second[1])
	}
	nowMs := regexp.MustCompile(`"nowMs": \d+`)
	sameAs(t, "show -o json", overAPI(t, base, "triggers", "show", "alpha", "-o", "json"), show, func(s string) string { return nowMs.ReplaceAllString(s, "NOW") })
}
