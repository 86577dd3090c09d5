package replica

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/recovery"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// runQL runs the binary to completion and returns its exit code and output.
func runQL(t *testing.T, bin string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "QL_DATABASE_URL=", "QL_HTTP_ADDR="), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

func TestServeRejectsBadSettingsBeforeAnyDatabaseConnection(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	// A listener standing in for PostgreSQL: any connection attempt shows.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	dbURL := "postgres://ql_runtime@" + ln.Addr().String() + "/ql?sslmode=disable"
	config := filepath.Join(t.TempDir(), "replica.yaml")
	if err := os.WriteFile(config, []byte("lease: 2m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		env     []string
		args    []string
		mention string
	}{
		{"flag", nil, []string{"--page-size", "1000"}, "--page-size 1000 is outside 1–256"},
		{"environment", []string{"QL_CADENCE=10ms"}, nil, "--cadence 10ms is outside 250ms–1h"},
		{"config file", nil, []string{"--config", config}, "--lease 2m is outside 1s–1m"},
		{"config file from the environment", []string{"QL_CONFIG=" + config}, nil, "--lease 2m is outside 1s–1m"},
		{"replica id", nil, []string{"--replica-id", "bad id"}, "--replica-id"},
		{"worker ingress off loopback without TLS", []string{"QL_WORKER_ADDR=0.0.0.0:8081"}, []string{"--worker-addr", "0.0.0.0:0"},
			"--worker-addr 0.0.0.0:0 is not a loopback address"},
		{"run lease", nil, []string{"--run-lease", "1s"}, "--run-lease 1s is outside 3s–10m"},
	}
	for _, c := range cases {
		args := append([]string{"serve", "--profile", "cluster", "--database-url", dbURL, "--http-addr", "127.0.0.1:0", "--worker-addr", "127.0.0.1:0"}, c.args...)
		code, out := runQL(t, bin, c.env, args...)
		if code != 2 || !strings.Contains(out, c.mention) {
			t.Errorf("%s: exit %d, output %q; want exit 2 mentioning %q", c.name, code, out, c.mention)
		}
	}
	select {
	case <-accepted:
		t.Fatal("ql connected to the database before rejecting its settings")
	default:
	}
}

func TestReadinessFailureStopsStartupNamingTheCode(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	// The URL's roles are fine, but readiness checks the privileges of
	// roles named with another prefix, which do not exist.
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}, "serve", "--profile", "cluster",
		"--role-prefix", "other_", "--http-addr", "127.0.0.1:0", "--worker-addr", "127.0.0.1:0", "--replica-id", "r-ready")
	if code != 1 || !strings.Contains(out, pgstore.CodePrivilegeDrift) || !strings.Contains(out, CodeNotReady) {
		t.Fatalf("exit %d:\n%s\nwant exit 1 naming %s", code, out, pgstore.CodePrivilegeDrift)
	}
	if strings.Contains(out, CodeReady+`"`) || strings.Contains(out, scheduler.CodeStarted) {
		t.Fatalf("the scheduler or admission started on a database that is not ready:\n%s", out)
	}
}

func TestStartupHoldsRecoveryCandidatesBeforeTheSchedulerStarts(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("recover", 3, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "seeder", 30*time.Second)
	if sum, err := schedule.Round(context.Background(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 3 {
		t.Fatalf("seeding round %v %v", sum.Counts, err)
	}
	var drifted string
	if err := env.Super.QueryRow(context.Background(), `UPDATE qinglong.runs SET state = 'dispatching', version = 3
		WHERE id = (SELECT id FROM qinglong.runs ORDER BY id LIMIT 1) RETURNING id`).Scan(&drifted); err != nil {
		t.Fatal(err)
	}
	before := env.Int(t, `SELECT version FROM qinglong.runs WHERE id = $1`, drifted)

	r := startReplica(t, bin, env, "replica-r")
	r.await(t, CodeReady, 30*time.Second)
	held := r.logs.withCode(recovery.CodeCandidateHeld)
	if len(held) != 1 || held[0]["run_id"] != drifted || held[0]["reason"] != "run_unleased" {
		t.Fatalf("held %v, want exactly run %s (run_unleased)", held, drifted)
	}
	codes := r.logs.codes()
	order := []int{
		slices.Index(codes, recovery.CodeCandidateHeld), slices.Index(codes, recovery.CodeConverged),
		slices.Index(codes, scheduler.CodeStarted), slices.Index(codes, CodeReady),
	}
	if !slices.IsSorted(order) || order[0] < 0 {
		t.Fatalf("startup order %v; want recovery held → converged → scheduler started → admission open:\n%s", order, r.logs)
	}
	r.signal(t, syscall.SIGTERM, 15*time.Second)
	var state string
	var version int64
	if err := env.Super.QueryRow(context.Background(), `SELECT state, version FROM qinglong.runs WHERE id = $1`, drifted).Scan(&state, &version); err != nil {
		t.Fatal(err)
	}
	if state != "dispatching" || version != before {
		t.Fatalf("held run is %s v%d, want it untouched (dispatching v%d)", state, version, before)
	}
}

func TestTheDatabaseURLsTLSSettingsAreHonoured(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	// The test server offers no TLS: a URL demanding it must not fall
	// back to plain text.
	u, err := url.Parse(env.URL(pgstore.RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("sslmode", "require")
	u.RawQuery = q.Encode()
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + u.String()}, "serve", "--profile", "cluster", "--role-prefix", env.Prefix,
		"--http-addr", "127.0.0.1:0", "--worker-addr", "127.0.0.1:0", "--replica-id", "r-tls")
	// Exit 4: a URL and a server that disagree on TLS fail the same way
	// until one of them is changed, as a conflict with what exists does.
	if code != 4 || !strings.Contains(out, "the server does not accept TLS") {
		t.Fatalf("exit %d:\n%s\nwant exit 4 saying the server does not accept TLS", code, out)
	}
	if strings.Contains(out, "test-password-") {
		t.Fatalf("the connection password was printed:\n%s", out)
	}
}

func TestATransientFailureDuringStartupRecoveryIsRetried(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("retry", 1, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "seeder", 30*time.Second)
	if sum, err := schedule.Round(context.Background(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("seeding round %v %v", sum.Counts, err)
	}
	// Enough unfinished Runs (held candidates: they have no Attempt) that
	// startup recovery is still scanning when its backend is terminated.
	env.Exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key || '-' || g, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms
		FROM qinglong.runs, generate_series(1, 10000) g`)

	r := startReplica(t, bin, env, "replica-t")
	r.await(t, CodeDatabaseReady, 30*time.Second)
	terminateBackends(t, env, "replica-t")
	failed := r.await(t, CodeActivationFailed, 30*time.Second)
	if failed["step"] != "recovery" || failed["db_code"] != "connection_lost" {
		t.Fatalf("activation failure %v; want step recovery, db_code connection_lost:\n%s", failed, r.logs)
	}
	if code, reason := r.readyz(t); code != http.StatusServiceUnavailable || reason != ReasonStarting {
		t.Fatalf("readyz %d %q while startup is retried", code, reason)
	}
	r.await(t, CodeReady, 60*time.Second)
	if code, _ := r.readyz(t); code != http.StatusOK {
		t.Fatalf("readyz %d after the retried startup", code)
	}
	if n := len(r.logs.withCode(recovery.CodeConverged)); n != 1 {
		t.Fatalf("recovery converged %d times, want once (after the retry):\n%s", n, r.logs)
	}
	r.signal(t, syscall.SIGTERM, 15*time.Second)
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, r.logs)
	}
}

func TestAWrongSchemaStillStopsStartup(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Exec(t, `ALTER TABLE qinglong.runs ADD COLUMN added_by_hand int`)
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}, "serve", "--profile", "cluster",
		"--role-prefix", env.Prefix, "--http-addr", "127.0.0.1:0", "--worker-addr", "127.0.0.1:0", "--replica-id", "r-schema")
	if code != 1 || !strings.Contains(out, pgstore.CodeSchemaDrift) || !strings.Contains(out, CodeNotReady) {
		t.Fatalf("exit %d:\n%s\nwant exit 1 naming %s", code, out, pgstore.CodeSchemaDrift)
	}
	if strings.Contains(out, CodeActivationFailed) {
		t.Fatalf("a wrong schema was retried as if transient:\n%s", out)
	}
}
