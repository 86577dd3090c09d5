package singlecli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/single/server"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// waitingFile's task writes its first line, then waits for release before
// its last.
func waitingFile(release string) string {
	return `project: logs
tasks:
  - name: wait
    script: |
      printf 'first line\n'; until [ -e ` + release + ` ]; do sleep 0.05; done; printf 'last line\n'
triggers:
  - {name: wait, task: wait, cron: "0 0 1 1 *", timezone: UTC}
`
}

// startedFollowers runs the Run of waitingFile's trigger now and follows
// it with `runs logs -f` over the API and on the database, once both have
// printed its first line; it returns the Run, its attempt's log file and
// how each follower ended.
func startedFollowers(t *testing.T, dir, base, operator string) (string, string, func() (outcome, outcome)) {
	t.Helper()
	db := readOnlyDB(t, dir)
	st, body := call(t, "POST", base+"/api/v1/triggers/"+triggerID(t, db, "wait")+"/run", operator, `{"requestId":"r1"}`)
	runID, _ := body["runId"].(string)
	if st != 200 || runID == "" {
		t.Fatalf("run now: %d %v", st, body)
	}
	runIn(t, db, "running")
	var attempt string
	if err := db.QueryRow(`SELECT id FROM attempts WHERE run_id = ?`, runID).Scan(&attempt); err != nil {
		t.Fatal(err)
	}
	follow := func(args ...string) (*syncBuffer, func() outcome) {
		var out, errOut syncBuffer
		exit := make(chan int, 1)
		go func() { exit <- cli.Main(context.Background(), Options("ql"), args, &out, &errOut) }()
		return &out, func() outcome { return outcome{<-exit, out.String(), errOut.String()} }
	}
	remoteOut, remoteEnd := follow("runs", "logs", "-f", runID, "--api-url", base)
	localOut, localEnd := follow("runs", "logs", "-f", runID, "--data-dir", dir)
	for deadline := time.Now().Add(20 * time.Second); remoteOut.String() != "first line\n" || localOut.String() != "first line\n"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 20s the followers printed %q over the API, %q on the database; want the first line", remoteOut.String(), localOut.String())
		}
	}
	return runID, filepath.Join(server.LayoutOf(dir).Logs, attempt+".log"), func() (outcome, outcome) { return remoteEnd(), localEnd() }
}

// An offset past the end of an attempt's log, of a running Run or of one
// that ended, is refused with 416, reason log_offset_past_end, and the
// log's length in Ql-Log-Length and Content-Range, never answered as an
// empty log that is complete: a follower asking with another attempt's
// offset would take it as having everything. A follower whose log became
// shorter than what it printed (replaced on the disk) says so and goes on
// from its end, over the API and on the database alike.
func TestALogOffsetPastItsEndIsRefusedWithTheLogsLength(t *testing.T) {
	dir := installedDir(t)
	release := filepath.Join(dir, "release")
	applyDefs(t, dir, waitingFile(release))
	reader, operator := newToken(t, dir, "reader", "read"), newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	t.Cleanup(func() { writeFile(t, dir, "release", "") })
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", reader)
	runID, logFile, ended := startedFollowers(t, dir, base, operator)

	pastEnd := func(offset string, length string) {
		t.Helper()
		st, raw, h := httpcall.Bearer(t, http.MethodGet, base+"/api/v1/runs/"+runID+"/log?offset="+offset, reader, nil)
		if st != http.StatusRequestedRangeNotSatisfiable || h.Get("Ql-Log-Length") != length || h.Get("Content-Range") != "bytes */"+length ||
			!strings.Contains(string(raw), `"reason":"log_offset_past_end"`) || !strings.Contains(string(raw), "holds "+length+" bytes") {
			t.Fatalf("GET the log from %s: %d %s, headers %v; want 416 log_offset_past_end with the length %s", offset, st, raw, h, length)
		}
	}
	pastEnd("99999999", "11")
	if st, raw, h := httpcall.Bearer(t, http.MethodGet, base+"/api/v1/runs/"+runID+"/log?offset=11", reader, nil); st != 200 || len(raw) != 0 || h.Get("Ql-Log-Offset") != "11" {
		t.Fatalf("GET the log from its end: %d %q %v; want 200 and no bytes", st, raw, h)
	}

	// The log replaced by a shorter one: the command goes on writing the
	// file it opened, the followers read the new one.
	if err := os.Rename(logFile, logFile+".old"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(logFile), filepath.Base(logFile), "new\n")
	time.Sleep(1500 * time.Millisecond) // a follower's slowest round
	f, err := os.OpenFile(logFile, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("more\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	writeFile(t, dir, "release", "")
	remote, local := ended()
	for name, o := range map[string]outcome{"over the API": remote, "on the database": local} {
		if o.code != 0 || o.out != "first line\nmore\n" || !strings.Contains(o.err, "attempt 1: the log holds 4 bytes, fewer than the 11 already read: it was cut or replaced; following on from its end, byte 4") ||
			!strings.HasSuffix(o.err, "(run "+runID+" ended: succeeded)\n") {
			t.Errorf("logs -f %s: exit %d, %q, stderr %q; want the first line, what came after the new log's end, and the shorter log said", name, o.code, o.out, o.err)
		}
	}
	waitRunsEnded(t, readOnlyDB(t, dir))
	pastEnd("250", "9")
}

// A log removed from the server's disk while its Run runs is refused with
// 404, reason log_removed, saying it was removed, without the server's
// log directory (a read token's holder has no business with it; the
// server's own log names it); a follower, over the API and on the
// database, says the log is gone and follows the Run on to its end.
func TestALogRemovedWhileItsRunRunsIsSaidGoneWithoutTheServersPath(t *testing.T) {
	dir := installedDir(t)
	release := filepath.Join(dir, "release")
	applyDefs(t, dir, waitingFile(release))
	reader, operator := newToken(t, dir, "reader", "read"), newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	t.Cleanup(func() { writeFile(t, dir, "release", "") })
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", reader)
	runID, logFile, ended := startedFollowers(t, dir, base, operator)

	if err := os.Remove(logFile); err != nil {
		t.Fatal(err)
	}
	st, body := call(t, "GET", base+"/api/v1/runs/"+runID+"/log", reader, "")
	e, _ := body["error"].(map[string]any)
	if msg, _ := e["message"].(string); st != 404 || e["reason"] != "log_removed" || !strings.Contains(msg, "the log of attempt 1 is gone") ||
		strings.Contains(msg, server.LayoutOf(dir).Logs) || strings.Contains(msg, "not started") {
		t.Fatalf("GET the removed log: %d %v; want 404 log_removed saying it is gone, without the server's path", st, body)
	}
	time.Sleep(1500 * time.Millisecond) // a follower's slowest round
	writeFile(t, dir, "release", "")
	remote, local := ended()
	gone := "(run " + runID + ": the log of attempt 1 is gone: it was removed while or after the attempt ran, so its output cannot be printed; following the run on)\n"
	for name, o := range map[string]outcome{"over the API": remote, "on the database": local} {
		if o.code != 0 || o.out != "first line\n" || strings.Count(o.err, gone) != 1 || !strings.HasSuffix(o.err, "(run "+runID+" ended: succeeded)\n") {
			t.Errorf("logs -f %s: exit %d, %q, stderr %q; want the log said gone once and the run's end", name, o.code, o.out, o.err)
		}
	}
}
