package singlecli

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/single/server"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// logsFile's big task writes control characters and 2.5 MB of random
// bytes (three answers of the log route), then waits for its release; its
// flood task writes past the 3 MiB log cap the test's server is given.
func logsFile(release string) string {
	return `project: logs
tasks:
  - name: big
    script: |
      printf 'start\033[31m red\r\n\tbell\a\n'; head -c 2500000 /dev/urandom; until [ -e ` + release + ` ]; do sleep 0.05; done; printf 'end\n'
  - name: flood
    script: head -c 4000000 /dev/zero | tr '\0' x
triggers:
  - {name: big, task: big, cron: "0 0 1 1 *", timezone: UTC}
  - {name: flood, task: flood, cron: "0 0 1 1 *", timezone: UTC}
`
}

// `runs logs` given --api-url prints what it prints on the database, byte
// for byte, with the same messages and exit codes: following a running
// Run to its end, once, of one attempt, of a Run whose log was cut at its
// cap, and when the attempt or the Run does not exist. The route answers
// at most httpapi.MaxLogAnswer bytes at a time, with headers saying where
// the answer ends and whether more will come, and 404 or 400 with the
// API's error for what does not exist or is not a number.
func TestRunsLogsOverTheAPIPrintsWhatTheDatabasePathPrintsByteForByte(t *testing.T) {
	dir := installedDir(t)
	release := filepath.Join(dir, "release")
	applyDefs(t, dir, logsFile(release))
	reader, operator := newToken(t, dir, "reader", "read"), newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone", "--log-max-bytes", strconv.Itoa(3<<20))
	t.Cleanup(func() { writeFile(t, dir, "release", "") })
	db := readOnlyDB(t, dir)
	runNow := func(trigger string) string {
		t.Helper()
		st, body := call(t, "POST", base+"/api/v1/triggers/"+triggerID(t, db, trigger)+"/run", operator, `{"requestId":"r1"}`)
		id, _ := body["runId"].(string)
		if st != 200 || id == "" {
			t.Fatalf("run %s now: %d %v", trigger, st, body)
		}
		return id
	}
	big := runNow("big")
	if running := runIn(t, db, "running"); running != big {
		t.Fatalf("run %s is running; want %s", running, big)
	}
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", reader)

	// Both follow the running Run, print what it wrote before it waits,
	// and, once released, the rest until it ends.
	follow := func(args ...string) (*syncBuffer, func() outcome) {
		var out, errOut syncBuffer
		exit := make(chan int, 1)
		go func() { exit <- cli.Main(context.Background(), Options("ql-edge"), args, &out, &errOut) }()
		return &out, func() outcome { return outcome{<-exit, out.String(), errOut.String()} }
	}
	remoteOut, remoteEnd := follow("runs", "logs", "-f", big, "--api-url", base)
	localOut, localEnd := follow("runs", "logs", "-f", big, "--data-dir", dir)
	for deadline := time.Now().Add(20 * time.Second); len(remoteOut.String()) < 2500000 || len(localOut.String()) < 2500000; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 20s the followers printed %d bytes over the API, %d on the database; want the 2.5 MB the task wrote before it waits",
				len(remoteOut.String()), len(localOut.String()))
		}
	}
	writeFile(t, dir, "release", "")
	remote, local := remoteEnd(), localEnd()
	var attempt string
	if err := db.QueryRow(`SELECT id FROM attempts WHERE run_id = ?`, big).Scan(&attempt); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(filepath.Join(server.LayoutOf(dir).Logs, attempt+".log"))
	if err != nil {
		t.Fatal(err)
	}
	if len(written) < 2500000 || !bytes.HasPrefix(written, []byte("start\x1b[31m")) || !bytes.HasSuffix(written, []byte("end\n")) {
		t.Fatalf("the big task's log holds %d bytes; want its 2.5 MB and its end", len(written))
	}
	if local.code != 0 || local.out != string(written) || local.err != "(run "+big+" ended: succeeded)\n" {
		t.Fatalf("logs -f on the database: exit %d, %d bytes, stderr %q; want the whole log and the run's end", local.code, len(local.out), local.err)
	}
	sameAs(t, "logs -f of a running Run", remote, local, nil)

	flood := runNow("flood")
	waitRunsEnded(t, db)
	none := "0193a8a0-0000-7000-8000-00000000abcd"
	for _, args := range [][]string{
		{big}, {big, "--attempt", "1"}, {big, "-f"}, {big, "-f", "--attempt", "1"}, {flood}, {flood, "-f"}, {big, "--attempt", "0"}, {big, "--attempt", "2"},
	} {
		args = append([]string{"runs", "logs"}, args...)
		sameAs(t, strings.Join(args, " "), overAPI(t, base, args...), onDB(t, dir, args...), nil)
	}
	if o := onDB(t, dir, "runs", "logs", flood); o.code != 0 || len(o.out) < 3<<20 || !strings.Contains(o.err, "truncated") {
		t.Errorf("logs of the flood on the database: exit %d, %d bytes, %q; want the log cut at its cap, said", o.code, len(o.out), o.err)
	}
	sameError(t, "logs of a Run that does not exist", overAPI(t, base, "runs", "logs", none), onDB(t, dir, "runs", "logs", none), nil)

	// The route itself: three answers for the big log, each at most
	// MaxLogAnswer bytes, the last saying it is complete.
	var got []byte
	for offset, answers := int64(0), 0; ; answers++ {
		st, body, h := httpcall.Bearer(t, http.MethodGet, base+"/api/v1/runs/"+big+"/log?offset="+strconv.FormatInt(offset, 10), reader, nil)
		if st != 200 || h.Get("Content-Type") != "application/octet-stream" || len(body) > httpapi.MaxLogAnswer || h.Get("Ql-Attempt") != "1" ||
			h.Get("Ql-Latest-Attempt") != "1" || h.Get("Ql-Attempt-Ended") != "true" || h.Get("Ql-Run-State") != "succeeded" || h.Get("Ql-Run-Ended") != "true" ||
			h.Get("Ql-Log-Truncated") != "false" || h.Get("Ql-Log-Offset") != strconv.FormatInt(offset+int64(len(body)), 10) {
			t.Fatalf("GET the log from %d: %d, %d bytes, headers %v", offset, st, len(body), h)
		}
		got, offset = append(got, body...), offset+int64(len(body))
		if h.Get("Ql-Log-Complete") == "true" {
			if answers != 2 || !bytes.Equal(got, written) {
				t.Fatalf("the log in %d answers: %d bytes; want it whole (%d bytes) in 3", answers+1, len(got), len(written))
			}
			break
		}
		if answers > 2 {
			t.Fatalf("the log in more than 3 answers: %d bytes so far", len(got))
		}
	}
	if _, _, h := httpcall.Bearer(t, http.MethodGet, base+"/api/v1/runs/"+flood+"/log?attempt=1&offset=3000000", reader, nil); h.Get("Ql-Log-Truncated") != "true" {
		t.Errorf("the flood's log: headers %v; want it said truncated", h)
	}
	for query, want := range map[string]struct {
		status int
		code   string
		says   string
	}{
		"/api/v1/runs/" + none + "/log":          {404, "not_found", "does not exist; list runs"},
		"/api/v1/runs/" + big + "/log?attempt=2": {404, "not_found", "has no attempt 2; its attempts are 1"},
		"/api/v1/runs/" + big + "/log?attempt=0": {400, "invalid", "is not an attempt number"},
		"/api/v1/runs/" + big + "/log?offset=-1": {400, "invalid", "is not a byte offset"},
		"/api/v1/runs/" + big + "/log?offset=x":  {400, "invalid", "is not a byte offset"},
		"/api/v1/runs/" + big + "/log?from=1":    {400, "invalid", "use attempt, offset"},
		"/api/v1/runs/not-an-id/log":             {400, "invalid", "give a run id"},
	} {
		st, body := call(t, "GET", base+query, reader, "")
		e, _ := body["error"].(map[string]any)
		if msg, _ := e["message"].(string); st != want.status || e["code"] != want.code || !strings.Contains(msg, want.says) {
			t.Errorf("GET %s: %d %v; want %d %s saying %q", query, st, body, want.status, want.code, want.says)
		}
	}
}
