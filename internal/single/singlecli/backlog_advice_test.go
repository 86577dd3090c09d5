package singlecli

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/single/server"
)

// cappedFile is a project capped at one Run holding a slot at once.
const cappedFile = "project: capped\nmaxRunning: 1\ntasks:\n  - {name: nap, script: 'sleep 30'}\ntriggers:\n" +
	"  - {name: hog, task: nap, cron: '0 0 1 1 *', timezone: UTC}\n"

// A backlog of a trigger whose project runs its maxRunning Runs is said to
// queue behind the project's cap, with the advice to raise maxRunning: no
// number of slots would start those Runs, so the advice to raise the
// server's --concurrency would not help. The trigger's own Run holds the
// project's one share (a stopped server's Run left running).
func TestABacklogOfAProjectAtItsCapAdvisesRaisingMaxRunning(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, cappedFile)
	var first string
	for i := range 11 {
		out := onDB(t, dir, "triggers", "run", "capped/hog", "--request-id", fmt.Sprint("hog-", i))
		id := queuedRun.FindStringSubmatch(out.out)
		if out.code != 0 || id == nil {
			t.Fatalf("triggers run: %d %q %q", out.code, out.out, out.err)
		}
		if first == "" {
			first = id[1]
		}
	}
	db, err := sql.Open("sqlite", server.LayoutOf(dir).DB+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `UPDATE runs SET state = 'running', version = version + 1 WHERE id = ?`, first); err != nil {
		t.Fatal(err)
	}
	want := "capped/hog: backlog: 10 Runs queued behind its project's cap: capped runs 1 of its maxRunning 1 Runs at once; raise the project's maxRunning in its definitions file"
	list := onDB(t, dir, "triggers", "list")
	if list.code != 0 || !strings.Contains(list.out, want) || strings.Contains(list.out, "--concurrency") {
		t.Fatalf("triggers list: exit %d\n%s%s\nwant the line %q and no advice to raise the server's --concurrency", list.code, list.out, list.err, want)
	}
}
