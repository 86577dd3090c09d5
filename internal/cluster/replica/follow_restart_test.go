package replica

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// `ql runs logs -f` waits out a PostgreSQL restart (said once on stderr)
// and goes on from the byte it had printed: every line once, then the
// run's end.
func TestRunsLogsFollowWaitsOutAPostgreSQLRestartAndGoesOnWithoutRepeatingOrLosingOutput(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	srv, env := ownServer(t)
	rt := env.Runtime(t, "cli-follow", 30*time.Second)
	followed := admitRuns(t, env, rt, 1)[0]
	w := newFakeWorker(t, env, rt, "w-follow")
	_, lease := w.startOne(t)

	cmd := exec.Command(bin, "runs", "logs", "-f", followed)
	cmd.Env = append(os.Environ(), "QL_HTTP_ADDR=", "QL_DATABASE_URL="+env.URL(pgstore.RoleRuntime))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := outputLines(stdout)
	expect := func(line string) {
		t.Helper()
		select {
		case got, ok := <-lines:
			if !ok || got != line {
				t.Fatalf("logs -f printed %q (open %v); want %q next; stderr %q", got, ok, line, stderr.String())
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("logs -f did not print %q; stderr %q", line, stderr.String())
		}
	}
	offset, _ := w.appendLog(t, lease, 0, "one\n", pgstore.WorkerSettings{})
	expect("one")

	postmaster := srv.PID()
	// Down for several of the follower's polls: each of them fails.
	if err := srv.Restart(t.Context(), 3*time.Second); err != nil {
		t.Fatal(err)
	}
	if srv.PID() == postmaster {
		t.Fatalf("the postmaster (pid %d) did not change: no restart happened", postmaster)
	}
	// The test's own pools lost their connections with the server too.
	env.Super.Reset()
	after := &fakeWorker{rt: env.Runtime(t, "cli-follow-after", 30*time.Second), id: w.id, session: w.session}
	offset, _ = after.appendLog(t, lease, offset, "two\n", pgstore.WorkerSettings{})
	expect("two")
	after.exit(t, lease, 0, offset)

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("logs -f ended with %v across the restart; stderr %q", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("logs -f still runs after the run ended; stderr %q", stderr.String())
	}
	if rest, ok := <-lines; ok {
		t.Fatalf("logs -f printed %q after the last line: output repeated", rest)
	}
	errText := stderr.String()
	if n := strings.Count(errText, "waiting up to 5m for the database to answer again"); n != 1 ||
		!strings.Contains(errText, "the database is unavailable") || !strings.Contains(errText, "(run "+followed+" ended: succeeded)") {
		t.Fatalf("stderr %q: want the wait said once, naming the unavailable database, then the run's end", errText)
	}
}
