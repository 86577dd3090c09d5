package replica

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On the cluster, pause and resume go through the admin or the runtime
// role (a replica's API pauses with the runtime's), disable and enable
// through the admin role only, and show through the runtime role; a paused
// or disabled trigger is never claimed, and show prints the occurrences a
// catch-up collapsed.
func TestCLIPausesWithEitherRoleAndShowsTheLedgerWithTheRuntimeRole(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	admin, runtime := env.URL(pgstore.RoleAdmin), env.URL(pgstore.RoleRuntime)
	applyOneQuietTrigger(t, bin, admin)
	rt := env.Runtime(t, "cli-seeder", 30*time.Second)
	round := func() schedule.Summary {
		t.Helper()
		sum, err := schedule.Round(context.Background(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	round()
	env.MakeDue(t, 3*60*60_000)
	if sum := round(); sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("catch-up round %v, want one admission", sum.Counts)
	}

	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "triggers", "pause", "t00000"); code != 0 || !strings.Contains(out, "paused at") {
		t.Fatalf("pause as runtime: exit %d %q", code, out)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "triggers", "resume", "t00000"); code != 0 || !strings.Contains(out, "resumed at") {
		t.Fatalf("resume as runtime: exit %d %q", code, out)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "triggers", "pause", "cli/t00000", "--note", "db upgrade"); code != 0 || !strings.Contains(out, "paused at") {
		t.Fatalf("pause as admin: exit %d %q", code, out)
	}
	env.MakeDue(t, 60_000)
	if sum := round(); sum.Taken != 0 {
		t.Fatalf("a round claimed %d rows of a paused trigger", sum.Taken)
	}

	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "triggers", "show", "t00000", "-o", "json")
	var d view.TriggerDetail
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil {
		t.Fatalf("show -o json: exit %d %q", code, out)
	}
	if !d.Paused || d.PauseNote != "db upgrade" || len(d.Runs) != 1 || len(d.Ledger) != 1 || d.Ledger[0].Reason != "collapsed" || d.Ledger[0].Count < 2 || len(d.NextFires) != 5 {
		t.Fatalf("show: %+v; want paused with its note, one run and its collapsed occurrences", d)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "triggers", "show", "t00000"); code != 0 ||
		!strings.Contains(out, "paused     since") || !strings.Contains(out, "collapsed") {
		t.Fatalf("show: exit %d %q", code, out)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "triggers", "resume", "t00000"); code != 0 || !strings.Contains(out, "resumed at") {
		t.Fatalf("resume: exit %d %q", code, out)
	}
	if sum := round(); sum.Taken != 1 {
		t.Fatalf("a round after the resume took %d rows, want the resumed one", sum.Taken)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "triggers", "disable", "t00000"); code != 5 || !strings.Contains(out, "admin") {
		t.Fatalf("disable as runtime: exit %d %q; want exit 5 and a message naming the admin role", code, out)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "triggers", "disable", "cli/t00000"); code != 0 || !strings.Contains(out, "disabled as revision 2") {
		t.Fatalf("disable as admin: exit %d %q", code, out)
	}
	env.MakeDue(t, 60_000)
	if sum := round(); sum.Taken != 0 {
		t.Fatalf("a round claimed %d rows of a disabled trigger", sum.Taken)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "triggers", "enable", "t00000"); code != 0 || !strings.Contains(out, "enabled as revision 3") {
		t.Fatalf("enable as admin: exit %d %q", code, out)
	}
}

// ql triggers run and backfill write Runs, so on the cluster they need the
// runtime role's URL and say so with the admin role's; a repeated request
// id finds its Run, and a backfill reports what it admitted.
func TestCLIRunsNowAndBackfillsWithTheRuntimeRole(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	admin, runtime := env.URL(pgstore.RoleAdmin), env.URL(pgstore.RoleRuntime)
	applyOneQuietTrigger(t, bin, admin)
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "triggers", "run", "t00000", "--request-id", "r1"); code != 5 || !strings.Contains(out, "needs the runtime role's URL") {
		t.Fatalf("run now as admin: exit %d %q; want exit 5 and a message naming the runtime role", code, out)
	}
	for range 2 {
		if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "triggers", "run", "t00000", "--request-id", "r1", "-o", "json"); code != 0 || !strings.Contains(out, `"requestId": "r1"`) {
			t.Fatalf("run now as runtime: exit %d %q", code, out)
		}
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "triggers", "backfill", "t00000",
		"--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T02:59:59Z"); code != 0 || !strings.Contains(out, ": 3 occurrences from 2020-01-01T00:") || !strings.Contains(out, ", 3 admitted, ") {
		t.Fatalf("backfill as runtime: exit %d %q", code, out)
	}
	if runs := env.Int(t, `SELECT count(*) FROM qinglong.runs`); runs != 4 {
		t.Fatalf("%d runs, want the one run-now Run and three backfilled", runs)
	}
}

// On the cluster, run now tells on stderr what the Run lacks to start —
// a live replica, a connected worker — and nothing once a replica process
// serves the database and a worker's session is live.
func TestRunNowSaysWhatTheClusterLacksToStartItAndNothingOnceAReplicaAndAWorkerAreLive(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	admin, runtime := env.URL(pgstore.RoleAdmin), env.URL(pgstore.RoleRuntime)
	applyOneQuietTrigger(t, bin, admin)
	runNow := func(requestID string) string {
		t.Helper()
		code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "triggers", "run", "t00000", "--request-id", requestID)
		if code != 0 || !strings.Contains(out, "queued") {
			t.Fatalf("run now %s: exit %d %q", requestID, code, out)
		}
		return out
	}
	noReplica, noWorker := "note: no replica is running on this database", "note: the Run waits: no worker is connected"
	if out := runNow("alone"); !strings.Contains(out, noReplica) || !strings.Contains(out, noWorker) {
		t.Fatalf("run now with neither replica nor worker: %q; want %q and %q", out, noReplica, noWorker)
	}
	env.ConnectWorker(t, env.Runtime(t, "worker-host", 30*time.Second), "w1", nil, 4)
	if out := runNow("worker"); !strings.Contains(out, noReplica) || strings.Contains(out, noWorker) {
		t.Fatalf("run now with a worker but no replica: %q; want only %q", out, noReplica)
	}
	startReplica(t, bin, env, "rep-a").await(t, CodeReady, 30*time.Second)
	if out := runNow("served"); strings.Contains(out, "note:") {
		t.Fatalf("run now with a live replica and worker: %q; want no note", out)
	}
}

// applyOneQuietTrigger applies, with `ql apply` as the admin role (URL
// admin), a project "cli" of one trigger t00000 that is not due soon.
func applyOneQuietTrigger(t *testing.T, bin, admin string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "defs.yaml")
	if err := os.WriteFile(file, []byte(clustertest.Triggers("cli", 1, clustertest.QuietCron())), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "apply", "-f", file); code != 0 {
		t.Fatalf("apply: exit %d %q", code, out)
	}
}
