package dbcli

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A rotation gives the worker a new credential under its own name, printed
// alone on standard output; the credential it replaced authenticates as
// the same worker until its time passes in database time and is refused
// (as revoked) after; --keep-old 0 refuses it from the next request on;
// only the latest replaced credential is kept (the one before is
// forgotten); a revoked worker cannot rotate.
func TestARotatedCredentialKeepsTheWorkersNameAndTheOldOneOnlyForItsTime(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	rt := c.Runtime(t, "workers-test", 30*time.Second)
	create, _, err := workers(t, env, "create", "build-01", "--labels", "region=eu")
	if err != nil {
		t.Fatal(err)
	}
	first := strings.TrimSpace(create)
	before, err := rt.AuthenticateWorker(t.Context(), first)
	if err != nil {
		t.Fatal(err)
	}
	rotate := func(args ...string) string {
		t.Helper()
		out, note, err := workers(t, env, append([]string{"rotate", "build-01"}, args...)...)
		cred := strings.TrimSuffix(out, "\n")
		if err != nil || !strings.HasPrefix(cred, workerproto.CredentialPrefix) || strings.ContainsAny(cred, " \n") || strings.Contains(note, cred) {
			t.Fatalf("rotate %v: %v; printed %q and said %q; want the new credential alone on standard output", args, err, out, note)
		}
		return cred
	}
	valid := func(cred, which string) {
		t.Helper()
		if id, err := rt.AuthenticateWorker(t.Context(), cred); err != nil || id != before {
			t.Fatalf("the %s credential authenticates as %+v, %v; want worker build-01 as before", which, id, err)
		}
	}
	refused := func(cred, which string, want qlerror.Reason) {
		t.Helper()
		if _, err := rt.AuthenticateWorker(t.Context(), cred); !qlerror.Is(err, qlerror.Unauthenticated) || qlerror.ReasonOf(err) != want {
			t.Fatalf("the %s credential: %v; want it refused as %s", which, err, want)
		}
	}

	second := rotate()
	valid(second, "new")
	valid(first, "replaced, within its hour,")
	c.Exec(t, `UPDATE qinglong.workers SET previous_credential_until_ms = `+pgstore.ClockMsSQL+` - 1`)
	refused(first, "replaced, once its time passed,", pgstore.RefusalWorkerReplaced)
	valid(second, "new")

	third := rotate("--keep-old", "0")
	refused(second, "replaced with --keep-old 0", pgstore.RefusalWorkerReplaced)
	valid(third, "new")

	fourth := rotate("--keep-old", "2h")
	fifth := rotate()
	// Forgotten: refused as a credential nobody holds.
	if _, err := rt.AuthenticateWorker(t.Context(), third); !qlerror.Is(err, qlerror.Unauthenticated) || qlerror.ReasonOf(err) != "" {
		t.Fatalf("the credential replaced before the latest rotation: %v; want it refused as unknown", err)
	}
	valid(fourth, "replaced by the latest rotation")
	valid(fifth, "newest")

	if l := listWorkers(t, env); len(l.Workers) != 1 || l.Workers[0].Name != "build-01" || l.Workers[0].State != "active" || l.Workers[0].Labels["region"] != "eu" {
		t.Fatalf("after the rotations the list shows %+v; want build-01 alone, active, with its labels", l)
	}
	if _, _, err := workers(t, env, "revoke", "build-01"); err != nil {
		t.Fatal(err)
	}
	refused(fifth, "newest, after the revocation,", pgstore.RefusalWorkerRevoked)
	refused(fourth, "replaced, after the revocation,", pgstore.RefusalWorkerRevoked)
	if _, _, err := workers(t, env, "rotate", "build-01"); !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), "revoked, which is final") {
		t.Fatalf("rotate of a revoked worker: %v; want a refusal saying revocation is final", err)
	}
}

// A rotation's mistakes name what was wrong and what to do, before any
// credential changes.
func TestARotationsMistakesSayWhatToDo(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	create, _, err := workers(t, env, "create", "build-01")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rotate", "nobody"}, "list workers with `ql workers list`"},
		{[]string{"rotate"}, "takes one worker name"},
		{[]string{"rotate", "build-01", "--keep-old", "8d"}, "--keep-old: 8d is out of range: it takes 0s to 7d"},
		{[]string{"rotate", "build-01", "--keep-old", "soon"}, "not a duration"},
	} {
		if _, _, err := workers(t, env, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want %q", tc.args, err, tc.want)
		}
	}
	rt := c.Runtime(t, "workers-test", 30*time.Second)
	if _, err := rt.AuthenticateWorker(t.Context(), strings.TrimSpace(create)); err != nil {
		t.Fatalf("after the refused rotations the created credential: %v; want it valid", err)
	}
}
