package singlecli

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

// `ql runs list -o json` gives a lost Run's error code as errorCode, the
// name `runs show` gives an attempt's, as its table's ERROR column does,
// and a Run not lost none, on the database and over the API alike.
func TestRunsListInJSONGivesALostRunsErrorCode(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, napFile)
	srv := startServe(t, "--data-dir", dir, "--cadence", "250ms", "--stop-timeout", testStopTimeout)
	lost := queueRun(t, dir, "lost")
	waitState(t, dir, lost, run.Running)
	stopLosing(t, srv, dir, lost)
	queued := queueRun(t, dir, "queued")
	codes := func(where ...string) map[string]string {
		t.Helper()
		code, out, errOut := ql(t, append([]string{"runs", "list", "-o", "json"}, where...)...)
		var page view.RunList
		if code != 0 || json.Unmarshal([]byte(out), &page) != nil {
			t.Fatalf("runs list -o json %v: %d %q %q", where, code, out, errOut)
		}
		got := map[string]string{}
		for _, r := range page.Runs {
			got[r.ID] = r.ErrorCode
		}
		return got
	}
	if got := codes("--data-dir", dir); got[lost] != "server_stopped" || got[queued] != "" {
		t.Fatalf("runs list -o json on the database: error codes %v; want %s server_stopped and %s none", got, lost, queued)
	}
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_TOKEN", newToken(t, dir, "reader", "read"))
	if got := codes("--api-url", base); got[lost] != "server_stopped" || got[queued] != "" {
		t.Fatalf("runs list -o json over the API: error codes %v; want %s server_stopped and %s none", got, lost, queued)
	}
	if o := overAPI(t, base, "runs", "list"); o.code != 0 || !regexp.MustCompile(`(?m)^`+lost+` +lost .* server_stopped$`).MatchString(o.out) {
		t.Fatalf("runs list over the API: %+v; want the lost Run's row ending in server_stopped", o)
	}
}
