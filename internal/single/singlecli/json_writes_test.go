package singlecli

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// keysOf is the sorted names of a JSON object's members, or fails.
func keysOf(t *testing.T, what string, doc []byte) []string {
	t.Helper()
	var v map[string]json.RawMessage
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%s printed %q, not a JSON object: %v", what, doc, err)
	}
	return slices.Sorted(maps.Keys(v))
}

// Every write command a script drives takes -o json and prints the
// document its API route answers: apply (and its dry run), runs cancel,
// triggers pause, resume, enable and disable, projects pause and resume.
// On the database and over --api-url alike, with the same members as the
// route's own answer. Not parallel: it sets $QL_TOKEN.
func TestTheWriteCommandsPrintTheirAPIRoutesAnswerAsJSON(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	file := writeFile(t, dir, "api.yaml", quietFile)
	onDB := []string{"--data-dir", dir}
	overAPI := []string{"--api-url", base}
	t.Setenv("QL_TOKEN", admin)
	cli := func(where []string, args ...string) []byte {
		t.Helper()
		code, out, errOut := ql(t, append(append(args, "-o", "json"), where...)...)
		if code != 0 {
			t.Fatalf("ql %v -o json: exit %d %q %q", args, code, out, errOut)
		}
		return []byte(out)
	}
	_, list := call(t, "GET", base+"/api/v1/triggers", admin, "")
	id := list["triggers"].([]any)[0].(map[string]any)["triggerId"].(string)
	code, out, errOut := ql(t, "triggers", "run", "api/yearly", "--data-dir", dir)
	runID := regexp.MustCompile(`run (\S+) queued`).FindStringSubmatch(out)
	if code != 0 || runID == nil {
		t.Fatalf("triggers run: %d %q %q", code, out, errOut)
	}
	for _, c := range []struct {
		name, route, body string
		args              []string
	}{
		{"apply --dry-run", "/api/v1/apply?dryRun=true", quietFile, []string{"apply", "-f", file, "--dry-run"}},
		{"apply", "/api/v1/apply", quietFile, []string{"apply", "-f", file}},
		{"triggers pause", "/api/v1/triggers/" + id + "/pause", `{"note":"n"}`, []string{"triggers", "pause", "api/yearly", "--note", "n"}},
		{"triggers resume", "/api/v1/triggers/" + id + "/resume", `{}`, []string{"triggers", "resume", "api/yearly"}},
		{"triggers disable", "/api/v1/triggers/" + id + "/disable", `{}`, []string{"triggers", "disable", "api/yearly"}},
		{"triggers enable", "/api/v1/triggers/" + id + "/enable", `{}`, []string{"triggers", "enable", "api/yearly"}},
		{"projects pause", "/api/v1/projects/api/pause", `{"note":"n"}`, []string{"projects", "pause", "api", "--note", "n"}},
		{"projects resume", "/api/v1/projects/api/resume", `{}`, []string{"projects", "resume", "api"}},
		{"runs cancel", "/api/v1/runs/" + runID[1] + "/cancel", `{}`, []string{"runs", "cancel", runID[1]}},
	} {
		db, remote := keysOf(t, c.name+" on the database", cli(onDB, c.args...)), keysOf(t, c.name+" over the API", cli(overAPI, c.args...))
		st, answer := call(t, "POST", base+c.route, admin, c.body)
		if st != 200 {
			t.Fatalf("%s: the API answered %d %v", c.route, st, answer)
		}
		want := slices.Sorted(maps.Keys(answer))
		if !slices.Equal(db, want) || !slices.Equal(remote, want) {
			t.Errorf("%s -o json printed the members %v on the database and %v over the API; the API answers %v", c.name, db, remote, want)
		}
	}
}

// errorLine is the last line of a failed command's stderr as JSON.
type errorLine struct {
	Error struct {
		Code, Reason, Message string
		Params                map[string]string
	}
}

// A command asked for -o json that fails prints nothing on stdout and, as
// the last line of stderr after the text, the error as a JSON object with
// its code, reason, params and message: a run now of a disabled trigger
// is refused (exit 4) as trigger_disabled, naming the trigger, an apply
// over a moved revision as spec_changed naming both revisions, and a
// project's pause of a malformed name (exit 2) as name_shape, on the
// database and over --api-url alike. Not parallel: it sets $QL_TOKEN.
func TestAFailedCommandAskedForJSONEndsStderrWithTheErrorsReason(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, strings.Replace(quietFile, "    timezone: UTC\n", "    timezone: UTC\n    enabled: false\n", 1))
	t.Setenv("QL_TOKEN", newToken(t, dir, "admin", "admin"))
	base := serveAPI(t, dir, "standalone")
	for way, where := range map[string][]string{"on the database": {"--data-dir", dir}, "over the API": {"--api-url", base}} {
		code, out, errOut := ql(t, append([]string{"triggers", "run", "api/yearly", "-o", "json"}, where...)...)
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		var e errorLine
		if code != 4 || out != "" || len(lines) < 2 || !strings.Contains(lines[0], "is disabled") || json.Unmarshal([]byte(lines[len(lines)-1]), &e) != nil {
			t.Fatalf("triggers run of a disabled trigger -o json %s: exit %d, stdout %q, stderr %q; want exit 4, nothing on stdout, the text then a JSON line", way, code, out, errOut)
		}
		if e.Error.Code != "failed_precondition" || e.Error.Reason != "trigger_disabled" || e.Error.Params["trigger"] == "" || !strings.Contains(e.Error.Message, "is disabled") {
			t.Errorf("%s the error line is %+v; want failed_precondition, trigger_disabled, the trigger in its params and the message", way, e.Error)
		}
	}
	// An apply over a revision the project moved from: spec_changed,
	// with the revisions, as the server's answer carries them.
	file := writeFile(t, dir, "api.yaml", quietFile)
	for way, where := range map[string][]string{"on the database": {"--data-dir", dir}, "over the API": {"--api-url", base}} {
		code, out, errOut := ql(t, append([]string{"apply", "-f", file, "--if-match", "sha256:0000", "-o", "json"}, where...)...)
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		var e errorLine
		if code != 4 || out != "" || json.Unmarshal([]byte(lines[len(lines)-1]), &e) != nil || e.Error.Reason != "spec_changed" ||
			e.Error.Params["project"] != "api" || e.Error.Params["expected"] != "sha256:0000" || e.Error.Params["revision"] == "" {
			t.Errorf("apply --if-match of a moved project -o json %s: exit %d, stdout %q, stderr %q; want exit 4 and spec_changed with the project and both revisions", way, code, out, errOut)
		}
	}
	// A malformed project name is refused before anything is asked, the
	// same on the database as over the API: name_shape, exit 2.
	for way, where := range map[string][]string{"on the database": {"--data-dir", dir}, "over the API": {"--api-url", base}} {
		code, out, errOut := ql(t, append([]string{"projects", "pause", "Bad Name", "-o", "json"}, where...)...)
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		var e errorLine
		if code != 2 || out != "" || json.Unmarshal([]byte(lines[len(lines)-1]), &e) != nil || e.Error.Code != "invalid" || e.Error.Reason != "name_shape" || e.Error.Params["value"] != "Bad Name" {
			t.Errorf("projects pause of a malformed name -o json %s: exit %d, stdout %q, stderr %q; want exit 2, invalid, name_shape naming the value", way, code, out, errOut)
		}
	}
	if _, _, errOut := ql(t, "triggers", "run", "api/yearly", "--data-dir", dir); strings.Contains(errOut, `{"error"`) {
		t.Errorf("without -o json the error is text alone: %q", errOut)
	}
}

// `ql notifications retry -o json` prints the retry route's answer, a
// notification made pending again, on the database and over --api-url:
// the same members, the notification's included. Not parallel: it sets
// $QL_TOKEN.
func TestNotificationsRetryPrintsTheRetryRoutesAnswerAsJSON(t *testing.T) {
	r := newReceiver(t, func(string, int) int { return 503 })
	dir, db := notifyDataDir(t, failingDefs(r.srv.URL, "down"))
	admin := newToken(t, dir, "admin", "admin")
	t.Setenv("QL_TOKEN", admin)
	base := serveAPI(t, dir, "standalone", "--cadence", "250ms", "--notify-max-attempts", "1")
	runFailing(t, dir)
	var members [][]string
	for _, way := range []string{"on the database", "over the API", "the route"} {
		outboxState(t, db, "dead", 1, 30*time.Second)
		var id string
		if err := db.QueryRow(`SELECT id FROM notification_outbox`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		var doc []byte
		switch way {
		case "the route":
			st, raw, _ := httpcall.Bearer(t, "POST", base+"/api/v1/notifications/"+id+"/retry", admin, []byte(`{}`))
			if st != 200 {
				t.Fatalf("the retry route: %d %s", st, raw)
			}
			doc = raw
		default:
			where := []string{"--data-dir", dir}
			if way == "over the API" {
				where = []string{"--api-url", base}
			}
			code, out, errOut := ql(t, append([]string{"notifications", "retry", id, "-o", "json"}, where...)...)
			if code != 0 {
				t.Fatalf("notifications retry -o json %s: exit %d %q %q", way, code, out, errOut)
			}
			doc = []byte(out)
		}
		var v struct{ Notification json.RawMessage }
		if err := json.Unmarshal(doc, &v); err != nil || v.Notification == nil {
			t.Fatalf("%s answered %s; want {\"notification\": …}", way, doc)
		}
		members = append(members, append(keysOf(t, way, doc), keysOf(t, way, v.Notification)...))
	}
	if !slices.Equal(members[0], members[2]) || !slices.Equal(members[1], members[2]) {
		t.Errorf("notifications retry -o json printed %v on the database and %v over the API; the route answers %v", members[0], members[1], members[2])
	}
}
