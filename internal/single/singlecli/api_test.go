package singlecli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Both single-node profiles serve the API with tokens made by `ql tokens`:
// a read token lists, may not pause (403), an operate token pauses with an
// audit record naming it and its address, the last use is listed, and a
// revoked token is refused from its next request.
func TestTheSingleNodeProfilesServeTheAuthenticatedAPI(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"standalone", "edge"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			dir := installedDir(t)
			applyDefs(t, dir, quietFile)
			reader, operator := newToken(t, dir, "reader", "read"), newToken(t, dir, "op", "operate")
			base := serveAPI(t, dir, profile)

			if st, _ := call(t, "GET", base+"/api/v1/triggers", "", ""); st != 401 {
				t.Fatalf("no token: %d", st)
			}
			st, body := call(t, "GET", base+"/api/v1/triggers", reader, "")
			list, _ := body["triggers"].([]any)
			if st != 200 || len(list) != 1 {
				t.Fatalf("list with a read token: %d %v", st, body)
			}
			id, _ := list[0].(map[string]any)["triggerId"].(string)
			if st, body := call(t, "POST", base+"/api/v1/triggers/"+id+"/pause", reader, `{"note":"x"}`); st != 403 {
				t.Fatalf("pause with a read token: %d %v", st, body)
			}
			if st, body := call(t, "POST", base+"/api/v1/triggers/"+id+"/pause", operator, `{"note":"maintenance"}`); st != 200 || body["paused"] != true || body["changed"] != true {
				t.Fatalf("pause with an operate token: %d %v", st, body)
			}
			db := readOnlyDB(t, dir)
			var actor, note string
			if err := db.QueryRow(`SELECT actor, note FROM trigger_schedule_audit WHERE trigger_id = ? AND action = 'pause'`, id).Scan(&actor, &note); err != nil ||
				actor != "api:op@127.0.0.1" || note != "maintenance" {
				t.Fatalf("audit record %q %q %v", actor, note, err)
			}
			code, out, _ := ql(t, "tokens", "list", "-o", "json", "--data-dir", dir)
			var got struct{ Tokens []map[string]any }
			if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Tokens) != 2 || strings.Contains(out, reader) {
				t.Fatalf("tokens list: %d %q %v", code, out, err)
			}
			for _, tok := range got.Tokens {
				if tok["lastUsedAtMs"] == nil || tok["state"] != "active" {
					t.Fatalf("token %v: want its last use listed", tok)
				}
			}
			if code, out, errOut := ql(t, "tokens", "revoke", "reader", "--data-dir", dir); code != 0 || !strings.Contains(out, "revoked") {
				t.Fatalf("revoke: %d %q %q", code, out, errOut)
			}
			if st, body := call(t, "GET", base+"/api/v1/runs", reader, ""); st != 401 {
				t.Fatalf("a revoked token: %d %v", st, body)
			}
		})
	}
}

// Off loopback, serve refuses plain HTTP unless asked for it explicitly,
// and says what to do.
func TestServeRefusesPlainHTTPOffLoopback(t *testing.T) {
	t.Parallel()
	code, _, errOut := ql(t, "serve", "--data-dir", t.TempDir(), "--http-addr", "0.0.0.0:0")
	if code != 2 || !strings.Contains(errOut, "not a loopback address") || !strings.Contains(errOut, "--tls-cert") || !strings.Contains(errOut, "--insecure-http") {
		t.Fatalf("serve off loopback without TLS: %d %q", code, errOut)
	}
	code, _, errOut = ql(t, "serve", "--data-dir", t.TempDir(), "--tls-cert", "c.pem")
	if code != 2 || !strings.Contains(errOut, "--http-addr") {
		t.Fatalf("TLS flags without an address: %d %q", code, errOut)
	}
}

// A listen address without a port, or with one out of range, is refused
// for its shape, saying it must be host:port, before the address's
// transport is judged.
func TestServeRefusesAListenAddressThatIsNotHostAndPort(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ flag, addr, want string }{
		{"--http-addr", "nonsense", `--http-addr "nonsense" must be host:port, e.g. 127.0.0.1:8080`},
		{"--http-addr", "127.0.0.1:70000", "port 70000 is outside 0–65535"},
		{"--metrics-addr", "9464", `--metrics-addr "9464" must be host:port, e.g. 127.0.0.1:9464`},
	} {
		code, _, errOut := ql(t, "serve", "--data-dir", t.TempDir(), c.flag, c.addr)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "--tls-cert") {
			t.Errorf("serve %s %s: %d %q; want a usage error saying %q", c.flag, c.addr, code, errOut, c.want)
		}
	}
}

// A cancel over the API ends a queued Run, answers what it did to it, and
// its event names the token and the address it came from; a read token may
// not cancel.
func TestACancelOverTheAPIIsAuditedWithTheTokenAndAddress(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	// Each command waits for the test to end rather than for a time: one
	// running holds the only slot, so later Runs stay queued, and none is
	// left for the short stop timeout to kill, which under load could
	// overrun it.
	release := filepath.Join(dir, "release")
	applyDefs(t, dir, strings.Replace(slowFile, "sleep SECONDS", "until [ -e "+release+" ]; do sleep 0.05; done", 1))
	reader, operator := newToken(t, dir, "reader", "read"), newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone", "--concurrency", "1")
	t.Cleanup(func() { writeFile(t, dir, "release", "") })
	db := readOnlyDB(t, dir)
	id := runIn(t, db, "queued")
	if st, body := call(t, "POST", base+"/api/v1/runs/"+id+"/cancel", reader, ""); st != 403 {
		t.Fatalf("cancel with a read token: %d %v", st, body)
	}
	// Under load the dispatcher may start the Run first: then the cancel
	// is an intent (run.cancel_requested) the executor acts on.
	st, body := call(t, "POST", base+"/api/v1/runs/"+id+"/cancel", operator, "")
	got, _ := body["run"].(map[string]any)
	effect := map[any]string{"cancelled": "cancelled", "running": "stop_requested"}[got["state"]]
	if st != 200 || effect == "" || body["effect"] != effect {
		t.Fatalf("cancel with an operate token: %d %v; want the Run cancelled, or its stop requested, and the answer saying which", st, body)
	}
	if st, again := call(t, "POST", base+"/api/v1/runs/"+id+"/cancel", operator, ""); effect == "cancelled" && (st != 200 || again["effect"] != "none") {
		t.Fatalf("a second cancel of the cancelled Run: %d %v; want it to say it did nothing", st, again)
	}
	var name, payload string
	if err := db.QueryRow(`SELECT name, payload FROM run_events WHERE run_id = ? AND name IN ('run.cancelled', 'run.cancel_requested') ORDER BY seq LIMIT 1`, id).Scan(&name, &payload); err != nil ||
		!strings.Contains(payload, `"actor":"api:op@127.0.0.1"`) {
		t.Fatalf("%s payload %q %v; want the token and address as its actor", name, payload, err)
	}
}

// A command given --api-url without $QL_TOKEN says which scope of token it
// needs and where to make one: the API refuses apply a read token, and a
// hint naming read for every command sent the user to make one that is
// refused next. No server is needed: the check comes before any request.
func TestAMissingAPITokenIsToldTheScopeItsCommandNeeds(t *testing.T) {
	t.Parallel()
	defs := writeFile(t, t.TempDir(), "defs.yaml", quietFile)
	for _, c := range []struct {
		args  []string
		scope string
	}{
		{[]string{"apply", "-f", defs}, "admin"},
		{[]string{"runs", "rerun", "0193a8a0-0000-7000-8000-00000000abcd"}, "operate"},
		{[]string{"runs", "list"}, "read"},
	} {
		code, _, errOut := ql(t, append(c.args, "--api-url", "http://127.0.0.1:1")...)
		if code != 2 || !strings.Contains(errOut, "ql-edge tokens create NAME --scope "+c.scope+"`") || !strings.Contains(errOut, "export QL_TOKEN=") {
			t.Errorf("%v without $QL_TOKEN: %d %q; want the %s scope named in the command that makes one", c.args, code, errOut, c.scope)
		}
	}
}

// `runs list` and `triggers list` given --api-url print what they print
// from the database, asking the API with the token in $QL_TOKEN: an
// archived project's trigger as archived, a trigger's overlap policy in
// -o json. Not parallel: it sets $QL_TOKEN.
func TestTheCLIReadsOverTheAPIAsFromTheDatabase(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	old := strings.Replace(strings.Replace(quietFile, "project: api\n", "project: old\n", 1), "timezone: UTC\n", "timezone: UTC\n    overlap: skip\n", 1)
	applyDefs(t, dir, old)
	reader := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone")
	waitCursors(t, readOnlyDB(t, dir))
	// Archived once its cursor is set: an archived trigger's is not.
	applyDefs(t, dir, strings.Replace(old, "project: old\n", "project: old\nstatus: archived\n", 1))
	t.Setenv("QL_DATA_DIR", "")
	if code, _, errOut := ql(t, "triggers", "list", "--api-url", base); code != 2 || !strings.Contains(errOut, "QL_TOKEN") {
		t.Fatalf("--api-url without a token: %d %q", code, errOut)
	}
	t.Setenv("QL_TOKEN", "qlt_"+strings.Repeat("A", 43))
	if code, _, errOut := ql(t, "triggers", "list", "--api-url", base); code != 5 || !strings.Contains(errOut, "not known") {
		t.Fatalf("--api-url with an unknown token: %d %q; want exit 5, not allowed", code, errOut)
	}
	t.Setenv("QL_TOKEN", reader)
	for _, args := range [][]string{{"triggers", "list", "-o", "json"}, {"triggers", "list"}, {"runs", "list", "-o", "json"}, {"runs", "list", "--trigger", "api/yearly", "-o", "json"}} {
		code, local, errOut := ql(t, append(args, "--data-dir", dir)...)
		if code != 0 {
			t.Fatalf("%v on the database: %d %q", args, code, errOut)
		}
		if json := args[len(args)-1] == "json"; args[0] == "triggers" && (!strings.Contains(local, "archived") || (json && !strings.Contains(local, `"overlap": "skip"`))) {
			t.Fatalf("%v on the database: %q; want the archived trigger with its overlap policy", args, local)
		}
		code, remote, errOut := ql(t, append(args, "--api-url", base)...)
		if code != 0 || remote != local {
			t.Fatalf("%v over the API: %d %q %q; want what the database gives:\n%s", args, code, remote, errOut, local)
		}
	}
	if code, _, errOut := ql(t, "runs", "list", "--api-url", base, "--data-dir", dir); code != 2 || !strings.Contains(errOut, "not both") {
		t.Fatalf("--api-url with --data-dir: %d %q", code, errOut)
	}
}

// Run now and backfill over the API reach the store's manual admission: a
// run-now makes one Run and the same request id returns it again, and a
// backfill of the last three minutes of an every-minute trigger admits
// them once, counting them as existing the second time.
func TestRunNowAndBackfillOverTheAPIAdmitOnceEach(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	defs := strings.Replace(quietFile, `cron: "0 0 1 1 *"`, `cron: "* * * * *"`, 1)
	applyDefs(t, dir, defs)
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	_, body := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := body["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("triggers: %v", body)
	}
	id, _ := list[0].(map[string]any)["triggerId"].(string)

	st, first := call(t, "POST", base+"/api/v1/triggers/"+id+"/run", operator, `{"requestId":"req-1"}`)
	if st != 200 || first["created"] != true || first["runId"] == "" {
		t.Fatalf("run now: %d %v", st, first)
	}
	st, again := call(t, "POST", base+"/api/v1/triggers/"+id+"/run", operator, `{"requestId":"req-1"}`)
	if st != 200 || again["created"] != false || again["runId"] != first["runId"] {
		t.Fatalf("run now again with the same request id: %d %v, first %v", st, again, first)
	}
	if st, body := call(t, "POST", base+"/api/v1/triggers/"+id+"/run", operator, `{}`); st != 400 {
		t.Fatalf("run now without a request id: %d %v", st, body)
	}

	// Whole minutes strictly before now: the clock's own cursor starts at
	// the next one, so all three are the backfill's.
	to := time.Now().Truncate(time.Minute).Add(-time.Minute)
	window := fmt.Sprintf(`{"fromMs":%d,"toMs":%d}`, to.Add(-2*time.Minute).UnixMilli(), to.UnixMilli())
	st, filled := call(t, "POST", base+"/api/v1/triggers/"+id+"/backfill", operator, window)
	if st != 200 || filled["occurrences"] != float64(3) || filled["admitted"] != float64(3) || filled["existing"] != float64(0) {
		t.Fatalf("backfill: %d %v", st, filled)
	}
	st, refilled := call(t, "POST", base+"/api/v1/triggers/"+id+"/backfill", operator, window)
	if st != 200 || refilled["admitted"] != float64(0) || refilled["existing"] != float64(3) {
		t.Fatalf("backfill again: %d %v", st, refilled)
	}
	// A bad range names the field that is wrong; a bound left out is
	// refused, not read as 1970-01-01T00:00:00Z.
	for body, field := range map[string]string{`{"toMs":1}`: `"fromMs" is required`, `{"fromMs":0}`: `"toMs" is required`,
		`{"fromMs":5,"toMs":4}`: `"toMs" (4) is before "fromMs" (5)`} {
		if st, answer := call(t, "POST", base+"/api/v1/triggers/"+id+"/backfill", operator, body); st != 400 || !strings.Contains(fmt.Sprint(answer), field) {
			t.Fatalf("backfill %s: %d %v; want 400 saying %s", body, st, answer, field)
		}
	}
}

// A command given --api-url refuses plain HTTP to another host before it
// sends anything: the token would cross the network in clear text. A
// loopback address (a tunnel) stays allowed. Not parallel: it sets
// $QL_TOKEN.
func TestTheCLISendsNoTokenOverPlainHTTPToAnotherHost(t *testing.T) {
	t.Setenv("QL_TOKEN", "qlt_"+strings.Repeat("A", 43))
	t.Setenv("QL_DATA_DIR", "")
	for _, args := range [][]string{{"runs", "list"}, {"triggers", "list"}, {"apply", "-f", writeFile(t, t.TempDir(), "f.yaml", goodFile)}} {
		for _, base := range []string{"http://192.0.2.1:8080", "http://[2001:db8::1]:8080", "http://ql.example.com"} {
			code, _, errOut := ql(t, append(args, "--api-url", base)...)
			if code != 2 || !strings.Contains(errOut, "plain HTTP to another host") || !strings.Contains(errOut, "https://") {
				t.Fatalf("%v --api-url %s: exit %d %q; want a usage error naming the clear-text token", args, base, code, errOut)
			}
		}
	}
	if code, _, errOut := ql(t, "runs", "list", "--api-url", "http://127.0.0.1:1"); code != 1 || strings.Contains(errOut, "plain HTTP") {
		t.Fatalf("--api-url to a loopback address: exit %d %q; want it tried (and the closed port reported)", code, errOut)
	}
}

// A write's body is one JSON object sent as JSON: null, an array, a form or
// a field of the wrong type is refused with a message in the request's own
// terms (JSON types, field names), never the server's Go types; a field the
// endpoint does not take is refused naming the ones it takes; a pause note
// with a control character is refused naming it.
func TestAWriteBodyIsOneJSONObjectAndItsErrorsSpeakJSON(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	_, body := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := body["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("triggers: %v", body)
	}
	pause := base + "/api/v1/triggers/" + list[0].(map[string]any)["triggerId"].(string) + "/pause"
	for sent, want := range map[string]string{
		`null`:                           "is null, not a JSON object",
		`[]`:                             "is an array, not a JSON object",
		`"note"`:                         "is a string, not a JSON object",
		`{"note":5}`:                     `the field "note" is a JSON number`,
		`{"reason":"upgrade"}`:           `the field "reason", which this endpoint does not take; it takes note`,
		`{"note":"a`:                     "ends inside its JSON value",
		`note=hello`:                     "not valid JSON at byte",
		`{"note":"a\u001b[31mred"}`:      "U+001B",
		`{"note":"fake\nline"}`:          "U+000A",
		`{"note":"rtl \u202e override"}`: "U+202E",
	} {
		st, answer := call(t, "POST", pause, operator, sent)
		msg := fmt.Sprint(answer)
		if st != 400 || !strings.Contains(msg, want) || strings.Contains(msg, "Go value") || strings.Contains(msg, "httpapi.") {
			t.Errorf("pause with %s: %d %v; want 400 saying %q", sent, st, answer, want)
		}
	}
	req, err := http.NewRequestWithContext(t.Context(), "POST", pause, strings.NewReader("note=hello"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+operator)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(raw), "Content-Type: application/json") {
		t.Fatalf("a form-encoded pause: %d %s; want 400 asking for JSON", resp.StatusCode, raw)
	}
	if st, answer := call(t, "POST", pause, operator, `{"note":"upgrading 数据库"}`); st != 200 || answer["paused"] != true {
		t.Fatalf("a plain note: %d %v", st, answer)
	}
}
