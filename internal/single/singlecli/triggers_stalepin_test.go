package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A run now or a backfill of a trigger its file left on the revision
// before the one that disabled its task is refused on the database and
// over the API saying the task is disabled and that only its file, set
// enabled and applied with the trigger, enables it, in ql-edge's words
// with nothing of the cluster: never that the trigger is being
// republished and to try again in a moment, which no wait mends.
func TestARunNowOfATriggerItsDisabledTaskLeftBehindSaysWhyAndWhatMendsIt(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, unlistedFile("daily"))
	applyDefs(t, dir, "project: demo\ntasks:\n  - {name: hello, script: echo hi, enabled: false}\n")
	const why = "task hello is disabled, so nothing of trigger daily runs, run now and backfill included; only its definitions file enables a task: " +
		"set enabled: true on task hello in the file and apply it with the trigger "
	// The command to paste: this binary's, reaching the data directory
	// the refused command did; the API says it in ql's name.
	said := why + "(`ql-edge apply -f FILE --data-dir " + dir + "`, or on the Definitions page of the console)"
	clean := func(what, msg string) {
		t.Helper()
		for _, not := range []string{"republish", "try again", "replica", "worker", "cluster", "PostgreSQL", "`ql "} {
			if strings.Contains(msg, not) {
				t.Errorf("%s says %q: %q", what, not, msg)
			}
		}
	}
	from, to := time.Now().AddDate(-2, 0, 0).UTC().Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339)
	for _, args := range [][]string{{"triggers", "run", "demo/daily"}, {"triggers", "backfill", "demo/daily", "--from", from, "--to", to}} {
		code, out, errOut := ql(t, append(args, "--data-dir", dir)...)
		if code != 4 || !strings.Contains(errOut, said) {
			t.Errorf("%v: %d %q\nstderr %q\nwant exit 4 saying %q", args, code, out, errOut, said)
		}
		clean(strings.Join(args[:2], " "), errOut)
	}

	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	_, body := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := body["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("GET /api/v1/triggers: %v; want the one trigger", body)
	}
	id, _ := list[0].(map[string]any)["triggerId"].(string)
	st, body := call(t, "POST", base+"/api/v1/triggers/"+id+"/run", operator, `{"requestId": "left-behind"}`)
	e, _ := body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if st != 409 || e["reason"] != "task_disabled" || !strings.Contains(msg, why+"(`ql apply -f FILE`, or on the Definitions page of the console)") {
		t.Errorf("run now over the API: %d %v; want 409, task_disabled, saying %q", st, body, said)
	}
	b, _ := json.Marshal(body)
	clean("the API", strings.ReplaceAll(string(b), "`ql apply", ""))
}
