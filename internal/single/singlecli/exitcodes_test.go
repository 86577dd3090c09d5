package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Input the store refuses as invalid exits 2, as input the command line
// refuses does, from every command: a cursor that is no run id, a backfill
// window reaching into the future (naming the flag, not the API's field).
// A name that names nothing is not the command line's fault: it exits 1.
// A refusal by the trigger's state exits 4: the request conflicts with
// what exists.
func TestInputTheStoreRefusesExitsTwoAndARefusalByStateExitsFour(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, c := range []struct {
		what  string
		args  []string
		code  int
		want  string
		never string
	}{
		{"a cursor that is no run id", []string{"runs", "list", "--after", "garbage"}, 2, "run listing: give the page cursor (after) as the id of the last run", ""},
		{"a window ending in the future", []string{"triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", future}, 2,
			"the window's end (--to) is in the future", "toMs"},
		{"a window starting in the future", []string{"triggers", "backfill", "hourly", "--from", future, "--to", future}, 2,
			"the window's start (--from) is in the future", "fromMs"},
		{"the window reversed, as the command line checks it", []string{"triggers", "backfill", "hourly", "--from", "2020-01-02T00:00:00Z", "--to", "2020-01-01T00:00:00Z"}, 2,
			"--from 2020-01-02T00:00:00Z is after --to", ""},
		{"a trigger name that names nothing", []string{"triggers", "backfill", "nightly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T01:00:00Z"}, 1,
			`no trigger named "nightly"`, ""},
	} {
		code, out, errOut := ql(t, append(c.args, "--data-dir", dir)...)
		if code != c.code || !strings.Contains(errOut, c.want) || (c.never != "" && strings.Contains(errOut, c.never)) {
			t.Errorf("%s: %d %q %q; want exit %d and %q", c.what, code, out, errOut, c.code, c.want)
		}
	}
	if code, out, errOut := ql(t, "triggers", "disable", "hourly", "--data-dir", dir); code != 0 {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	code, _, errOut := ql(t, "triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T01:00:00Z", "--data-dir", dir)
	if code != 4 || !strings.Contains(errOut, "is disabled") {
		t.Errorf("backfill of a disabled trigger: %d %q; want exit 4, the trigger's state refusing it", code, errOut)
	}
}

// A request the trigger's overlap policy refuses exits 3, in text and in
// JSON, having said so as the command says what it did: `triggers run`
// ("not run") and `runs rerun` ("not re-run"), naming the unfinished Run
// it was refused beside, in text with the command that shows it and in
// JSON as "unfinished", so the user can look at it or cancel it. Forced,
// the run exits 0.
func TestARequestTheOverlapPolicyRefusesExitsThreeNamingTheEarlierRun(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	type result struct {
		RunID      string `json:"runId"`
		Created    bool   `json:"created"`
		Skipped    string `json:"skipped"`
		Unfinished string `json:"unfinished"`
	}
	run := func(wantCode int, args ...string) result {
		t.Helper()
		code, out, errOut := ql(t, append(args, "-o", "json", "--data-dir", dir)...)
		var r result
		if err := json.Unmarshal([]byte(out), &r); code != wantCode || err != nil {
			t.Fatalf("%v: %d %q %q (%v); want exit %d and the JSON report", args, code, out, errOut, err, wantCode)
		}
		return r
	}
	first := run(0, "triggers", "run", "hourly", "--request-id", "r1")
	if code, out, errOut := ql(t, "runs", "cancel", first.RunID, "--data-dir", dir); code != 0 {
		t.Fatalf("cancel: %d %q %q", code, out, errOut)
	}
	queued := run(0, "triggers", "run", "hourly", "--request-id", "r2")
	if !queued.Created {
		t.Fatalf("run r2 after r1 was cancelled: %+v, want a new Run", queued)
	}
	if r := run(3, "triggers", "run", "hourly", "--request-id", "r3"); r.Skipped != "overlap" || r.Created || r.Unfinished != queued.RunID {
		t.Fatalf("run r3 behind r2: %+v, want it skipped by overlap naming %s", r, queued.RunID)
	}
	show := "`ql-edge runs show " + queued.RunID + " --data-dir " + dir + "`"
	code, out, errOut := ql(t, "triggers", "run", "hourly", "--request-id", "r3", "--data-dir", dir)
	if code != 3 || !strings.Contains(out, "trigger hourly: not run (overlap") || !strings.Contains(out, "the earlier run "+queued.RunID) || !strings.Contains(out, show) || errOut != "" {
		t.Fatalf("run r3 behind r2, in text: %d %q %q; want exit 3 and only the report, naming %s and %s", code, out, errOut, queued.RunID, show)
	}
	if r := run(3, "runs", "rerun", first.RunID, "--request-id", "again"); r.Skipped != "overlap" || r.Created || r.Unfinished != queued.RunID {
		t.Fatalf("rerun of the cancelled run behind r2: %+v, want it skipped by overlap naming %s", r, queued.RunID)
	}
	code, out, _ = ql(t, "runs", "rerun", first.RunID, "--request-id", "again", "--data-dir", dir)
	if code != 3 || !strings.Contains(out, "not re-run (overlap") || !strings.Contains(out, "the earlier run "+queued.RunID) || !strings.Contains(out, show) {
		t.Fatalf("rerun behind r2, in text: %d %q; want exit 3 and the report, naming %s and %s", code, out, queued.RunID, show)
	}
	if r := run(0, "triggers", "run", "hourly", "--request-id", "r3", "--force"); !r.Created {
		t.Fatalf("forced run r3: %+v, want a new Run", r)
	}
}

// A name that is taken exits 4, not 1: the request conflicts with what
// exists, which a script tells from a failure. The message names what
// exists and what to do; nothing was created.
func TestANameThatIsTakenExitsFour(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	const pw = "correct horse battery"
	if code, out, errOut := qlIn(t, pw+"\n", "users", "create", "alice", "--password-stdin", "--data-dir", dir); code != 0 {
		t.Fatalf("users create alice: %d %q %q", code, out, errOut)
	}
	code, out, errOut := qlProcessIn(t, pw+"\n", "users", "create", "alice", "--password-stdin", "--data-dir", dir)
	if code != 4 || out != "" || !strings.Contains(errOut, `a user named "alice" exists; choose another name or delete it first`) {
		t.Errorf("users create alice again: %d %q %q; want exit 4 saying the name is taken and what to do", code, out, errOut)
	}
	newToken(t, dir, "ci", "read")
	code, out, errOut = ql(t, "tokens", "create", "ci", "--scope", "read", "--data-dir", dir)
	if code != 4 || out != "" || !strings.Contains(errOut, `an active token named "ci" exists; revoke it first`) {
		t.Errorf("tokens create ci again: %d %q %q; want exit 4 saying the name is taken and what to do", code, out, errOut)
	}
}

// A request the state of what it names refuses exits 4 on the database
// and over the API alike: a re-run of a Run not finished yet, a run of a
// disabled trigger. A name of nothing still exits 1 on both: a cancel of
// a Run, a retry of a notification, that do not exist. Not parallel: it
// sets $QL_TOKEN.
func TestARequestTheStateRefusesExitsFourOnTheDatabaseAndOverTheAPI(t *testing.T) {
	dir := installedDir(t)
	// A Run that is still running when asked over the API, the server
	// having started it.
	applyDefs(t, dir, strings.Replace(manualFile, "script: echo manual", "script: sleep 60", 1))
	operator := newToken(t, dir, "op", "operate")
	code, out, errOut := ql(t, "triggers", "run", "hourly", "-o", "json", "--data-dir", dir)
	var run struct{ RunID string }
	if err := json.Unmarshal([]byte(out), &run); code != 0 || err != nil {
		t.Fatalf("triggers run: %d %q %q", code, out, errOut)
	}
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)
	const unknown = "0193a8a0-0000-7000-8000-00000000abcd"
	type refusal struct {
		what string
		args []string
		code int
		want string
	}
	check := func(c refusal) {
		t.Helper()
		for _, where := range [][]string{{"--data-dir", dir}, {"--api-url", base}} {
			code, out, errOut := ql(t, append(c.args, where...)...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Errorf("%s (%s): %d %q %q; want exit %d saying %q", c.what, where[0], code, out, errOut, c.code, c.want)
			}
		}
	}
	check(refusal{"a re-run of a queued Run", []string{"runs", "rerun", run.RunID}, 4, "only a finished Run can be re-run"})
	check(refusal{"a cancel of a Run that does not exist", []string{"runs", "cancel", unknown}, 1, "does not exist"})
	check(refusal{"a retry of a notification that does not exist", []string{"notifications", "retry", unknown}, 1, "does not exist"})
	if code, out, errOut := ql(t, "triggers", "disable", "hourly", "--data-dir", dir); code != 0 {
		t.Fatalf("triggers disable: %d %q %q", code, out, errOut)
	}
	check(refusal{"a run of a disabled trigger", []string{"triggers", "run", "hourly"}, 4, "is disabled: nothing of it runs"})
}

// A credential that may not do what the command asks exits 5: a token
// that was revoked, a token of too small a scope. The message says which
// token and what to do; nothing was done. Not parallel: it sets
// $QL_TOKEN.
func TestACredentialThatMayNotExitsFive(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	reader, gone := newToken(t, dir, "reader", "read"), newToken(t, dir, "gone", "operate")
	if code, out, errOut := ql(t, "tokens", "revoke", "gone", "--data-dir", dir); code != 0 {
		t.Fatalf("tokens revoke: %d %q %q", code, out, errOut)
	}
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	for _, c := range []struct {
		what, token string
		args        []string
		want        string
	}{
		{"a revoked token", gone, []string{"triggers", "list"}, `the API token "gone" is revoked; create a new one`},
		{"a read token running a trigger", reader, []string{"triggers", "run", "hourly"}, `needs a token of scope operate; token "reader" has scope read`},
	} {
		t.Setenv("QL_TOKEN", c.token)
		code, out, errOut := ql(t, append(c.args, "--api-url", base)...)
		if code != 5 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: %d %q %q; want exit 5 saying %q", c.what, code, out, errOut, c.want)
		}
	}
	if code, out, _ := ql(t, "runs", "list", "-o", "json", "--data-dir", dir); code != 0 || strings.Contains(out, `"id"`) {
		t.Errorf("runs after the refusals: %d %q; want none", code, out)
	}
}

// Revoking a token revoked already changes nothing and says so, exiting 0
// as revoking a revoked worker, disabling a disabled trigger or user do;
// a name no token ever had still exits 1 saying how to list them.
func TestRevokingARevokedTokenSaysSoAndChangesNothing(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	newToken(t, dir, "ci", "read")
	if code, out, errOut := ql(t, "tokens", "revoke", "ci", "--data-dir", dir); code != 0 || out != "token \"ci\" revoked\n" {
		t.Fatalf("tokens revoke ci: %d %q %q", code, out, errOut)
	}
	code, out, errOut := ql(t, "tokens", "revoke", "ci", "--data-dir", dir)
	if code != 0 || !strings.HasPrefix(out, `token "ci" was revoked already (at `) || !strings.HasSuffix(out, "); nothing changed\n") || errOut != "" {
		t.Errorf("tokens revoke ci again: %d %q %q; want exit 0 saying it was revoked already", code, out, errOut)
	}
	code, out, errOut = ql(t, "tokens", "revoke", "nope", "--data-dir", dir)
	if code != 1 || out != "" || !strings.Contains(errOut, "no unrevoked token is named \"nope\"; list them with `ql-edge tokens list --data-dir "+dir+"`") {
		t.Errorf("tokens revoke nope: %d %q %q; want exit 1 saying how to list them", code, out, errOut)
	}
}
