package singlecli

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// madeRun applies the quiet definitions to a new data directory and makes
// one Run with `triggers run`, returning the directory and the Run's id.
func madeRun(t *testing.T) (string, string) {
	t.Helper()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	code, out, errOut := ql(t, "triggers", "run", "api/yearly", "--data-dir", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("triggers run: exit %d: %s", code, errOut)
	}
	code, list, errOut := ql(t, "runs", "list", "--data-dir", dir)
	fields := strings.Fields(strings.SplitN(list+"\n\n", "\n", 3)[1])
	if code != 0 || len(fields) == 0 || !strings.Contains(out, fields[0]) {
		t.Fatalf("runs list after triggers run: exit %d %q %q; run made: %s", code, list, errOut, out)
	}
	return dir, fields[0]
}

// `runs list --from/--to` lists the Runs created in [from, to), read as
// the console's Runs page reads them, in UTC or with an offset: a window
// after the Run or ending before it lists none, one around it lists it.
func TestRunsListKeepsOnlyTheRunsCreatedInTheWindow(t *testing.T) {
	t.Parallel()
	dir, id := madeRun(t)
	now := time.Now().UTC()
	hourAgo, inAnHour := now.Add(-time.Hour).Format("2006-01-02T15:04"), now.Add(time.Hour).In(time.FixedZone("", 8*3600)).Format(time.RFC3339)
	for _, c := range []struct {
		window []string
		listed bool
	}{
		{[]string{"--from", hourAgo}, true},
		{[]string{"--from", inAnHour}, false},
		{[]string{"--to", hourAgo}, false},
		{[]string{"--from", hourAgo, "--to", inAnHour}, true},
	} {
		code, out, errOut := ql(t, append([]string{"runs", "list", "--data-dir", dir}, c.window...)...)
		if code != 0 || strings.Contains(out, id) != c.listed {
			t.Errorf("runs list %v: exit %d\n%s%s\nwant run %s listed: %v", c.window, code, out, errOut, id, c.listed)
		}
	}
}

// A window bound that is no date and time, or a window whose start is not
// before its end, is a usage error naming the flag and the forms it takes.
func TestRunsListRefusesAWindowItCannotReadNamingTheForms(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	for _, c := range []struct {
		window []string
		want   []string
	}{
		{[]string{"--from", "yesterday"}, []string{`--from "yesterday" is not a date and time`, "2026-11-30T08:00 (UTC)", "+08:00"}},
		{[]string{"--to", "2026-13-01T00:00"}, []string{`--to "2026-13-01T00:00" is not a date and time`}},
		{[]string{"--from", "2026-11-30T08:00", "--to", "2026-11-30T07:00"}, []string{"is not before --to", "earlier time as --from"}},
	} {
		code, _, errOut := ql(t, append([]string{"runs", "list", "--data-dir", dir}, c.window...)...)
		for _, w := range c.want {
			if code != 2 || !strings.Contains(errOut, w) {
				t.Errorf("runs list %v: exit %d %q; want exit 2 saying %q", c.window, code, errOut, w)
			}
		}
	}
}

// GET /api/v1/runs takes from and to as `runs list` does, and answers a
// bound it cannot read with 400, reason run_list_not_a_time, naming it.
func TestTheRunsAPIListsTheRunsCreatedInTheWindow(t *testing.T) {
	t.Parallel()
	dir, id := madeRun(t)
	reader := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone")
	hourAgo := time.Now().UTC().Add(-time.Hour).Format("2006-01-02T15:04")
	for _, c := range []struct {
		query  string
		listed bool
	}{{"from=" + hourAgo, true}, {"to=" + hourAgo, false}, {"from=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), false}} {
		st, body := call(t, "GET", base+"/api/v1/runs?"+c.query, reader, "")
		runs, _ := body["runs"].([]any)
		listed := false
		for _, r := range runs {
			listed = listed || r.(map[string]any)["id"] == id
		}
		if st != 200 || listed != c.listed {
			t.Errorf("GET /api/v1/runs?%s: %d %v; want 200 with run %s listed: %v", c.query, st, body, id, c.listed)
		}
	}
	st, body := call(t, "GET", base+"/api/v1/runs?to=noon", reader, "")
	if errBody, _ := body["error"].(map[string]any); st != 400 || errBody["reason"] != "run_list_not_a_time" || !strings.Contains(errBody["message"].(string), `to "noon"`) {
		t.Fatalf("GET /api/v1/runs?to=noon: %d %v; want 400, reason run_list_not_a_time, naming to", st, body)
	}
}
