package singlecli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/view"
)

// An archived project's triggers are listed as archived with no next fire
// by `ql triggers list` (table and -o json), `ql triggers show` and the
// API's listing and detail, and run now, by the CLI or the API, is refused
// with words saying the project is archived and how to reactivate it.
func TestAnArchivedProjectsTriggersAreListedArchivedWithNoNextFireAndRunNowSaysHowToReactivate(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	applyDefs(t, dir, strings.Replace(quietFile, "project: api\n", "project: api\nstatus: archived\n", 1))

	code, out, errOut := ql(t, "triggers", "list", "--data-dir", dir)
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 2 || !strings.Contains(strings.Split(out, "\n")[1], " archived ") {
		t.Fatalf("triggers list: %d %q %q; want its one row saying archived", code, out, errOut)
	}
	code, out, errOut = ql(t, "triggers", "list", "-o", "json", "--data-dir", dir)
	var list view.TriggerList
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list.Triggers) != 1 {
		t.Fatalf("triggers list -o json: %d %q %q (%v)", code, out, errOut, err)
	}
	if tg := list.Triggers[0]; !tg.Archived || tg.NextFireAtMs != nil || tg.NextDueAtMs != nil || !strings.Contains(out, `"archived": true`) {
		t.Fatalf("listed %+v; want archived with no next fire", tg)
	}
	if d := showJSON(t, dir, "api/yearly"); !d.Trigger.Archived || d.Trigger.NextFireAtMs != nil {
		t.Fatalf("triggers show: %+v; want archived with no next fire", d.Trigger)
	}
	code, out, errOut = ql(t, "triggers", "run", "api/yearly", "--data-dir", dir)
	if code != 4 || !strings.Contains(errOut, "trigger yearly (") || !strings.Contains(errOut, "archived project") || !strings.Contains(errOut, "status: active") || !strings.Contains(errOut, "`ql-edge apply -f FILE --data-dir "+dir+"`") {
		t.Fatalf("triggers run: %d %q %q; want exit 4, a refusal naming the trigger, saying the project is archived and how to reactivate it", code, out, errOut)
	}

	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	st, body := call(t, "GET", base+"/api/v1/triggers", operator, "")
	items, _ := body["triggers"].([]any)
	if st != 200 || len(items) != 1 {
		t.Fatalf("GET /api/v1/triggers: %d %v", st, body)
	}
	item, _ := items[0].(map[string]any)
	if item["archived"] != true || item["nextFireAtMs"] != nil || item["nextDueAtMs"] != nil {
		t.Fatalf("the API lists %v; want archived: true with no next fire", item)
	}
	id, _ := item["triggerId"].(string)
	st, detail := call(t, "GET", base+"/api/v1/triggers/"+id, operator, "")
	if tg, _ := detail["trigger"].(map[string]any); st != 200 || tg["archived"] != true || tg["nextFireAtMs"] != nil {
		t.Fatalf("GET /api/v1/triggers/%s: %d %v; want archived: true with no next fire", id, st, detail)
	}
	st, refused := call(t, "POST", base+"/api/v1/triggers/"+id+"/run", operator, `{"requestId":"req-1"}`)
	if words := fmt.Sprint(refused); st != 409 || !strings.Contains(words, "archived project") || !strings.Contains(words, "status: active") {
		t.Fatalf("run now over the API: %d %v; want 409 saying the project is archived and how to reactivate it", st, refused)
	}
}

// `ql apply` of a file that makes an archived project active again
// records, in the apply's own transaction, what fell due on its triggers
// while it was archived as project_archived, and the trigger's next fire
// lies after the apply: none of it is run late.
func TestApplyingAnArchivedProjectActiveAgainRecordsWhatFellDueAndRunsNoneOfIt(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	active := projectFile("demo", "tick")
	apply := func(doc string) {
		t.Helper()
		if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "demo.yaml", doc), "--data-dir", dir); code != 0 {
			t.Fatalf("apply: %d %q %q", code, out, errOut)
		}
	}
	apply(active)
	apply(strings.Replace(active, "project: demo\n", "project: demo\nstatus: archived\n", 1))
	time.Sleep(2100 * time.Millisecond)
	apply(strings.Replace(active, "project: demo\n", "project: demo\nstatus: active\n", 1))
	d := showJSON(t, dir, "demo/tick")
	var archived int64
	for _, e := range d.Ledger {
		if e.Reason != "project_archived" || e.TriggerRevision != 1 {
			t.Fatalf("ledger entry %+v; want only project_archived ones of revision 1", e)
		}
		archived += e.Count
	}
	if archived < 2 || len(d.Runs) != 0 || d.Trigger.Archived || d.Trigger.NextFireAtMs == nil || *d.Trigger.NextFireAtMs <= d.Ledger[0].LastMs {
		t.Fatalf("after the reactivation: %+v; want at least 2 occurrences recorded as project_archived, no run, and the next fire after them", d)
	}
}

// `ql triggers disable` (and enable) of an archived project's trigger is
// refused in the user's words: what was tried (disable), why not (the
// project is archived) and what makes it possible, with this invocation's
// --data-dir; never the store's "publishing".
func TestDisablingAnArchivedProjectsTriggerSaysWhatWasRefusedAndHowToReactivate(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	applyDefs(t, dir, strings.Replace(quietFile, "project: api\n", "project: api\nstatus: archived\n", 1))
	code, out, errOut := ql(t, "triggers", "disable", "api/yearly", "--data-dir", dir)
	if code != 4 || strings.Contains(errOut, "publish") || !strings.Contains(errOut, `cannot disable trigger "yearly": its project is archived`) ||
		!strings.Contains(errOut, "status: active") || !strings.Contains(errOut, "`ql-edge apply -f FILE --data-dir "+dir+"`") {
		t.Fatalf("triggers disable: %d %q %q; want exit 4 saying the disable was refused as the project is archived, and how to reactivate it", code, out, errOut)
	}
}
