package singlecli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// An apply over the API validates as `ql apply` does, with the line and
// column of an error in its JSON; a dry run returns the diff with the
// changed fields and writes nothing; the apply publishes it with an audit
// record of the token and address; only an admin token may apply; and `ql
// apply --api-url` goes the same way. Not parallel: it sets $QL_TOKEN.
func TestApplyOverTheAPIValidatesDiffsPublishesAndAudits(t *testing.T) {
	for _, profile := range []string{"standalone", "edge"} {
		t.Run(profile, func(t *testing.T) {
			dir := installedDir(t)
			applyDefs(t, dir, quietFile)
			admin, operator := newToken(t, dir, "admin", "admin"), newToken(t, dir, "op", "operate")
			base := serveAPI(t, dir, profile)
			db := readOnlyDB(t, dir)
			audits := func() int {
				t.Helper()
				var n int
				if err := db.QueryRow(`SELECT count(*) FROM publish_audit`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			changed := strings.Replace(quietFile, "0 0 1 1 *", "0 0 1 2 *", 1)

			if st, body := call(t, "POST", base+"/api/v1/apply?dryRun=true", operator, changed); st != 403 {
				t.Fatalf("apply with an operate token: %d %v", st, body)
			}
			st, body := call(t, "POST", base+"/api/v1/apply?dryRun=true&file=api.yaml", admin, changed)
			objects, _ := body["objects"].([]any)
			if st != 200 || body["dryRun"] != true || body["updated"] != 1.0 || body["unchanged"] != 2.0 || len(objects) != 3 {
				t.Fatalf("dry run: %d %v", st, body)
			}
			if tr := objects[2].(map[string]any); tr["name"] != "yearly" || tr["change"] != "updated" || tr["revision"] != 2.0 ||
				len(tr["fields"].([]any)) != 1 || tr["fields"].([]any)[0] != "cron.expression" {
				t.Fatalf("dry run's trigger %v; want revision 2 changing cron.expression", tr)
			}
			if n := audits(); n != 0 {
				t.Fatalf("a dry run wrote %d audit records", n)
			}

			bad := strings.Replace(changed, "    timezone: UTC", "    timezone: UTC\n    colour: red", 1)
			st, body = call(t, "POST", base+"/api/v1/apply?file=api.yaml", admin, bad)
			e, _ := body["error"].(map[string]any)
			errs, _ := e["errors"].([]any)
			if st != 400 || e["code"] != "invalid" || !strings.HasPrefix(e["message"].(string), "api.yaml:10: ") || len(errs) != 1 {
				t.Fatalf("invalid file: %d %v; want 400 at api.yaml:10", st, body)
			}
			if at := errs[0].(map[string]any); at["line"] != 10.0 || at["column"] != 5.0 || !strings.Contains(at["message"].(string), "colour") {
				t.Fatalf("error place %v; want line 10, column 5, naming the field", at)
			}

			st, body = call(t, "POST", base+"/api/v1/apply", admin, changed)
			if st != 200 || body["dryRun"] != false || body["updated"] != 1.0 {
				t.Fatalf("apply: %d %v", st, body)
			}
			var actor, project, summary string
			if err := db.QueryRow(`SELECT actor, project, summary FROM publish_audit`).Scan(&actor, &project, &summary); err != nil ||
				actor != "api:admin@127.0.0.1" || project != "api" || summary != "updated trigger yearly (cron.expression)" {
				t.Fatalf("audit record %q %q %q %v", actor, project, summary, err)
			}
			if st, body = call(t, "POST", base+"/api/v1/apply", admin, changed); st != 200 || body["unchanged"] != 3.0 || audits() != 1 {
				t.Fatalf("applying again: %d %v, %d audit records; want all unchanged and no new record", st, body, audits())
			}

			t.Setenv("QL_DATA_DIR", "")
			t.Setenv("QL_TOKEN", admin)
			back := writeFile(t, dir, "back.yaml", quietFile)
			code, out, errOut := ql(t, "apply", "--dry-run", "-f", back, "--api-url", base)
			if code != 0 || !strings.Contains(out, "trigger yearly: would update cron.expression (revision 3)") || !strings.Contains(out, "valid (1 task, 1 trigger); dry run, nothing written") {
				t.Fatalf("apply --dry-run --api-url: %d %q %q", code, out, errOut)
			}
			if code, out, errOut := ql(t, "apply", "-f", back, "--api-url", base); code != 0 || !strings.Contains(out, "trigger yearly: updated (revision 3)") {
				t.Fatalf("apply --api-url: %d %q %q", code, out, errOut)
			}
			t.Setenv("QL_TOKEN", operator)
			if code, _, errOut := ql(t, "apply", "-f", back, "--api-url", base); code != 5 || !strings.Contains(errOut, "needs a token of scope admin") {
				t.Fatalf("apply --api-url with an operate token: %d %q; want exit 5, not allowed", code, errOut)
			}
		})
	}
}

// A file over the API's 1 MiB cap, which an apply to the database would
// take, is invalid input (exit 2, nothing written): `ql apply --api-url`
// says the cap and to split the project over several files or apply it on
// the database. Not parallel: it sets $QL_TOKEN.
func TestApplyOverTheAPIPastItsCapIsInvalidInputSayingToSplitTheProject(t *testing.T) {
	dir := installedDir(t)
	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	// Just under apply's own 4 MiB, so only the API's cap refuses it.
	big := writeFile(t, dir, "big.yaml", quietFile+strings.Repeat("# a comment line that pads the file past the API's cap\n", 76_000))
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	code, _, errOut := ql(t, "apply", "-f", big, "--api-url", base)
	for _, want := range []string{"big.yaml (4.0 MiB) is over the API's limit of 1 MiB in one request", "split the project over several files",
		"apply it on the database directly (--data-dir instead of --api-url), which takes files of up to 4 MiB"} {
		if code != 2 || !strings.Contains(errOut, want) {
			t.Fatalf("apply --api-url of a 4 MiB file: exit %d, %q; want exit 2 (invalid input) saying %q", code, errOut, want)
		}
	}
	db := readOnlyDB(t, dir)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM publish_audit`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d publish audit records (%v); want none: nothing was applied", n, err)
	}
}

// Without a metrics listener of its own, a server serves /metrics on the
// API's, to a read token only.
func TestMetricsAreServedOnTheAPIListenerToAReadToken(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	reader := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone")
	if st, _, _ := httpcall.Bearer(t, "GET", base+"/metrics", "", nil); st != 401 {
		t.Fatalf("/metrics without a token: %d", st)
	}
	if st, text, _ := httpcall.Bearer(t, "GET", base+"/metrics", reader, nil); st != 200 || !regexp.MustCompile(`qinglong_info\{commit="[^"]+",profile="standalone",version="[^"]+"\} 1`).MatchString(string(text)) {
		t.Fatalf("/metrics with a read token: %d %q", st, text)
	}
}

// A file the server refuses to publish at one of its entries is printed
// by `ql apply --api-url` as a local apply prints a file's errors: each at
// the file as the command line names it (FILE:LINE: message, which editors
// jump to; the server knows only the file's base name), then their count.
// Not parallel: it sets $QL_TOKEN.
func TestApplyOverTheAPIPrintsTheServersErrorsAtTheFileAsNamed(t *testing.T) {
	dir := installedDir(t)
	archived := strings.Replace(quietFile, "project: api\n", "project: api\nstatus: archived\n", 1)
	applyDefs(t, dir, quietFile)
	applyDefs(t, dir, archived)
	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	file := writeFile(t, t.TempDir(), "api.yaml", strings.Replace(archived, "0 0 1 1 *", "0 0 1 2 *", 1))
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	code, out, errOut := ql(t, "apply", "-f", file, "--api-url", base)
	want := file + `:7: trigger "yearly": project "api" is archived; set its status to active before publishing to it` + "\n" +
		"ql-edge: server: " + file + ": 1 error; nothing was applied\n"
	if code == 0 || out != "" || errOut != want {
		t.Fatalf("apply --api-url into an archived project: %d %q\nstderr:\n%q\nwant:\n%q", code, out, errOut, want)
	}
}

// A file read from standard input is cited as "stdin" over the API as on
// the database: its mistakes, found before anything is sent, point at the
// same place either way.
func TestApplyFromStandardInputCitesStdinOverTheAPIAsOnTheDatabase(t *testing.T) {
	dir := installedDir(t)
	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	const broken = "project: api\ntasks:\n  - name: BAD\n"
	_, _, onDB := qlProcessIn(t, broken, "apply", "-f", "-", "--data-dir", dir)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	code, _, overAPI := qlProcessIn(t, broken, "apply", "-f", "-", "--api-url", base)
	if code != 2 || !strings.HasPrefix(overAPI, "stdin:3:") || overAPI != onDB {
		t.Fatalf("apply -f - --api-url of a broken file: exit %d, %q; want exit 2 and what the database path says, %q", code, overAPI, onDB)
	}
}
