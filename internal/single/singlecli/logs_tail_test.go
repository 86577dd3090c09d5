package singlecli

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// tailFile's lines task writes the numbers 1 to 200000, a line each
// (1.3 MB); its unended task writes three lines, the last without a
// newline; its wait task writes five lines, waits for release, then one
// more.
func tailFile(release string) string {
	return `project: tail
tasks:
  - name: lines
    script: seq 1 200000
  - name: unended
    script: printf 'a\nb\nc'
  - name: wait
    script: |
      seq 1 5; until [ -e ` + release + ` ]; do sleep 0.05; done; echo after
triggers:
  - {name: lines, task: lines, cron: "0 0 1 1 *", timezone: UTC}
  - {name: unended, task: unended, cron: "0 0 1 1 *", timezone: UTC}
  - {name: wait, task: wait, cron: "0 0 1 1 *", timezone: UTC}
`
}

// `runs logs RUN --tail N` prints the last N lines of the log, on the
// database and over the API alike, on both SQLite profiles: a last line
// without a newline counts as one, a count past the log's lines prints it
// whole, and with -f it follows on from there to the Run's end. A count
// of 0, a negative one or one over 10000 is refused (exit 2) saying the
// range. The route answers ?tail=N from where the lines begin
// (Ql-Log-Start) and refuses it beside ?offset or out of its range.
func TestRunsLogsTailPrintsTheLastLinesOfTheLog(t *testing.T) {
	for _, profile := range []string{"standalone", "edge"} {
		t.Run(profile, func(t *testing.T) {
			dir := installedDir(t)
			release := filepath.Join(dir, "release")
			applyDefs(t, dir, tailFile(release))
			reader, operator := newToken(t, dir, "reader", "read"), newToken(t, dir, "op", "operate")
			base := serveAPI(t, dir, profile, "--log-max-bytes", strconv.Itoa(3<<20))
			t.Cleanup(func() { writeFile(t, dir, "release", "") })
			db := readOnlyDB(t, dir)
			runNow := func(trigger string) string {
				t.Helper()
				st, body := call(t, "POST", base+"/api/v1/triggers/"+triggerID(t, db, trigger)+"/run", operator, `{"requestId":"`+trigger+`"}`)
				id, _ := body["runId"].(string)
				if st != 200 || id == "" {
					t.Fatalf("run %s now: %d %v", trigger, st, body)
				}
				return id
			}
			lines, unended := runNow("lines"), runNow("unended")
			waitRunsEnded(t, db)
			t.Setenv("QL_DATA_DIR", "")
			t.Setenv("QL_TOKEN", reader)
			for _, c := range []struct {
				run, n, want string
			}{
				{lines, "3", "199998\n199999\n200000\n"},
				{lines, "1", "200000\n"},
				{unended, "2", "b\nc"},
				{unended, "5", "a\nb\nc"},
			} {
				args := []string{"runs", "logs", c.run, "--tail", c.n}
				local := onDB(t, dir, args...)
				if local.code != 0 || local.out != c.want || local.err != "" {
					t.Errorf("%s on the database: exit %d, %q, %q; want %q", strings.Join(args[3:], " "), local.code, local.out, local.err, c.want)
				}
				sameAs(t, strings.Join(args, " "), overAPI(t, base, args...), local, nil)
			}
			if o := onDB(t, dir, "runs", "logs", lines, "-n", "2", "--attempt", "1"); o.code != 0 || o.out != "199999\n200000\n" {
				t.Errorf("-n 2 --attempt 1: exit %d, %q; want the last two lines", o.code, o.out)
			}
			for _, n := range []string{"0", "-1", "10001"} {
				o := onDB(t, dir, "runs", "logs", lines, "--tail", n)
				if o.code != 2 || o.out != "" || !strings.Contains(o.err, "--tail "+n+" is not a line count: give 1 to 10000 lines") {
					t.Errorf("--tail %s: exit %d, %q, %q; want 2 saying the range", n, o.code, o.out, o.err)
				}
				sameAs(t, "--tail "+n, overAPI(t, base, "runs", "logs", lines, "--tail", n), o, nil)
			}

			st, body, h := httpcall.Bearer(t, http.MethodGet, base+"/api/v1/runs/"+lines+"/log?tail=2", reader, nil)
			size := int64(len("1\n")*9 + len("10\n")*90 + len("100\n")*900 + len("1000\n")*9000 + len("10000\n")*90000 + len("100000\n")*100001)
			if st != 200 || string(body) != "199999\n200000\n" || h.Get(view.HeaderLogStart) != strconv.FormatInt(size-14, 10) ||
				h.Get(view.HeaderLogOffset) != strconv.FormatInt(size, 10) || h.Get(view.HeaderLogComplete) != "true" {
				t.Errorf("?tail=2: %d %q start %s offset %s complete %s; want the last two lines from %d to %d, complete",
					st, body, h.Get(view.HeaderLogStart), h.Get(view.HeaderLogOffset), h.Get(view.HeaderLogComplete), size-14, size)
			}
			for q, reason := range map[string]string{"tail=2&offset=0": "log_tail_with_offset", "tail=0": "log_tail_lines", "tail=10001": "log_tail_lines", "tail=x": "query_not_a_count"} {
				if st, body, _ := httpcall.Bearer(t, http.MethodGet, base+"/api/v1/runs/"+lines+"/log?"+q, reader, nil); st != 400 || !strings.Contains(string(body), `"`+reason+`"`) {
					t.Errorf("?%s: %d %s; want 400 %s", q, st, body, reason)
				}
			}

			// Following with a tail: the last two lines written so far,
			// then the rest as it comes, to the Run's end.
			wait := runNow("wait")
			if running := runIn(t, db, "running"); running != wait {
				t.Fatalf("run %s is running; want %s", running, wait)
			}
			follow := func(args ...string) (*syncBuffer, func() outcome) {
				var out, errOut syncBuffer
				exit := make(chan int, 1)
				go func() { exit <- cli.Main(context.Background(), Options("ql-edge"), args, &out, &errOut) }()
				return &out, func() outcome { return outcome{<-exit, out.String(), errOut.String()} }
			}
			for deadline := time.Now().Add(20 * time.Second); onDB(t, dir, "runs", "logs", wait).out != "1\n2\n3\n4\n5\n"; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("after 20s the wait task had not written its five lines")
				}
			}
			remoteOut, remoteEnd := follow("runs", "logs", wait, "-f", "--tail", "2", "--api-url", base)
			localOut, localEnd := follow("runs", "logs", wait, "-f", "--tail", "2", "--data-dir", dir)
			for deadline := time.Now().Add(20 * time.Second); remoteOut.String() != "4\n5\n" || localOut.String() != "4\n5\n"; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("after 20s the followers printed %q over the API, %q on the database; want the last two lines", remoteOut.String(), localOut.String())
				}
			}
			writeFile(t, dir, "release", "")
			remote, local := remoteEnd(), localEnd()
			if local.code != 0 || local.out != "4\n5\nafter\n" || local.err != "(run "+wait+" ended: succeeded)\n" {
				t.Errorf("-f --tail 2 on the database: exit %d, %q, %q; want the last two lines, the rest, and the end", local.code, local.out, local.err)
			}
			sameAs(t, "-f --tail 2", remote, local, nil)
		})
	}
}
