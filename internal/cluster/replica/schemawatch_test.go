package replica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A `ql db migrate` of a newer build under a running replica leaves it a
// schema its binary does not know. Readiness ran when it activated; it
// must see the change while it runs (at its next heartbeat), stop
// scheduling and granting through the ordered stop, and exit naming the
// readiness code and what to do — never go on writing on that schema.
func TestAReplicaStopsWhenANewerBuildMigratesTheDatabaseUnderIt(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("upgrade", 3, "* * * * * *"))
	// A 4 s claim lease beats every second (a quarter of it).
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "replica-old",
		RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond,
		Lease: 4 * time.Second, StopTimeout: 2 * time.Second}
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	logs, log, logged := capturedLogs()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- serveReplica(ctx, s, log) }()
	eventually(t, 30*time.Second, "the replica to be ready", func() bool { return len(logs.withCode(CodeReady)) == 1 })
	addr, _ := logs.withCode(CodeListening)[0]["addr"].(string)
	eventually(t, 10*time.Second, "the replica to admit", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs`) > 0
	})

	// What a newer build's migrate commits: its change, its history row
	// and the capability row it advances.
	newest := pgstore.Stream()[len(pgstore.Stream())-1]
	newer := newest.Seq + 1
	env.Exec(t, `CREATE TABLE qinglong.from_a_newer_build (id bigint PRIMARY KEY)`)
	newerID := fmt.Sprintf("pg-%04d-from-a-newer-build", newer)
	env.Exec(t, `INSERT INTO qinglong.schema_migrations VALUES ($1, $2, 'sha256:'||repeat('c', 64), 0)`, newer, newerID)
	env.Exec(t, `UPDATE qinglong.schema_capability SET version = $1, name = 'from-a-newer-build'`, newer)
	migrated := time.Now()

	// A minute is the test's patience for a replica that never stops; how
	// soon it sees the change is checked below, from its log line.
	var stopErr error
	select {
	case stopErr = <-served:
	case <-time.After(time.Minute):
		t.Fatalf("the replica still ran a minute after the schema moved past its binary:\n%s", logs)
	}
	logged()
	var re *pgstore.ReadinessError
	if !errors.As(stopErr, &re) || re.Code != pgstore.CodeHistoryAhead {
		t.Fatalf("serve returned %v; want the readiness error %s", stopErr, pgstore.CodeHistoryAhead)
	}
	said := logs.withCode(CodeSchemaChanged)
	if len(said) != 1 {
		t.Fatalf("%d %s lines; want one:\n%s", len(said), CodeSchemaChanged, logs)
	}
	// Seen at a heartbeat (every second here), said at once: six of them
	// leave a loaded machine its slowness, while a replica that looked
	// only every sixth beat or rarer fails. How long the ordered stop then
	// takes is the stop timeout's, which drain_test.go checks.
	if seen := logTime(t, said[0]).Sub(migrated); seen > 6*time.Second {
		t.Errorf("the replica said the schema changed %s after the migration; want it seen at its next heartbeat, a second away", seen)
	}
	msg, _ := said[0]["msg"].(string)
	why, _ := said[0]["error"].(string)
	if said[0]["readiness_code"] != pgstore.CodeHistoryAhead || !strings.Contains(why, newerID) ||
		!strings.Contains(why, newest.ID) || !strings.Contains(why, "upgrade") || !strings.Contains(msg, "Upgrading") {
		t.Errorf("the line says %q, error %q; want the code, the unknown migration, the binary's last one, and what to do", msg, why)
	}
	codes := logs.codes()
	if i, j := slices.Index(codes, CodeSchemaChanged), slices.Index(codes, CodeStopped); j < i {
		t.Errorf("the replica's log does not end with its ordered stop after %s: %v", CodeSchemaChanged, codes)
	}
	if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
		resp.Body.Close()
		t.Errorf("/readyz still answers (%d) after the replica stopped", resp.StatusCode)
	}
	stopped := env.Int(t, `SELECT count(*) FROM qinglong.replica_heartbeats WHERE replica_id = 'replica-old' AND stopped_at_ms IS NOT NULL`)
	if stopped != 1 {
		t.Errorf("the replica's heartbeat row is not marked stopped (%d rows): it did not stop in order", stopped)
	}
}

// A command of one build on a database another build migrated is refused
// before it reads or writes, naming the readiness code and what to do:
// during an upgrade, this build's `ql apply` before `ql db migrate`, or
// (when the next build has migrated) this build's command after it. A
// database of a newer build conflicts with what exists (exit 4, as an
// embedded database of a newer build does, by the exit-code table): the
// same binary fails the same way until it is upgraded. Every command says
// so alike (`ql workers`, which connects as the admin role alone, too),
// and a replica that refuses it at start exits 4 too, its last line a log
// line with its code and the version and commit of the binary that
// refused, as every line of its log. Going back, the older build's `ql db
// roles` is refused too: it would revoke the grants on the newer tables.
func TestACommandOnADatabaseOfAnotherBuildIsRefusedBeforeItWrites(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	file := filepath.Join(t.TempDir(), "defs.yaml")
	if err := os.WriteFile(file, []byte(clustertest.Triggers("other-build", 1, clustertest.QuietCron())), 0o600); err != nil {
		t.Fatal(err)
	}
	newest := pgstore.Stream()[len(pgstore.Stream())-1]
	future := fmt.Sprintf("pg-%04d-future", newest.Seq+1)
	cases := []struct {
		name, code, says string
		exit             int
		tamper           func(env *clustertest.Env)
	}{
		{"migrated by a newer build", pgstore.CodeHistoryAhead, future, 4, func(env *clustertest.Env) {
			env.Exec(t, `INSERT INTO qinglong.schema_migrations VALUES ($1, $2, 'sha256:'||repeat('c', 64), 0)`, newest.Seq+1, future)
		}},
		{"not yet migrated for this build", pgstore.CodeHistoryBehind, "run `ql db migrate`", 1, func(env *clustertest.Env) {
			env.Exec(t, `DELETE FROM qinglong.schema_migrations WHERE seq = $1`, newest.Seq)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := clustertest.New(t)
			c.tamper(env)
			admin, runtime := env.URL(pgstore.RoleAdmin), env.URL(pgstore.RoleRuntime)
			commands := []struct {
				url  string
				args []string
			}{{admin, []string{"apply", "-f", file}}, {runtime, []string{"runs", "list"}}, {runtime, []string{"triggers", "list"}},
				{runtime, []string{"db", "check", "--role-prefix", env.Prefix}}, {runtime, []string{"workers", "list"}},
				{admin, []string{"workers", "create", "w-other-build"}}}
			if c.code == pgstore.CodeHistoryAhead {
				// Behind, migrate and roles would do their work: migrate
				// cures it, and roles runs before it on every install.
				commands = append(commands, []struct {
					url  string
					args []string
				}{{env.URL(pgstore.RoleMigration), []string{"db", "migrate"}}, {env.DB.URL, []string{"db", "roles", "--role-prefix", env.Prefix}}}...)
			}
			for _, cmd := range commands {
				code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + cmd.url}, cmd.args...)
				if code != c.exit || !strings.Contains(out, "("+c.code+")") || !strings.Contains(out, c.says) {
					t.Errorf("ql %s: exit %d %q; want exit %d naming %s and saying %q", strings.Join(cmd.args, " "), code, out, c.exit, c.code, c.says)
				}
			}
			if n := env.Int(t, `SELECT count(*) FROM qinglong.projects`); n != 0 {
				t.Errorf("the refused apply published %d projects", n)
			}
			if n := env.Int(t, `SELECT count(*) FROM qinglong.workers`); n != 0 {
				t.Errorf("the refused workers create made %d workers", n)
			}
			_, version := runQL(t, bin, nil, "version")
			code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "serve", "--profile", "cluster", "--role-prefix", env.Prefix,
				"--http-addr", "127.0.0.1:0", "--worker-addr", "127.0.0.1:0", "--replica-id", "r-other-build")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var last map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
				t.Fatalf("a replica of another build: exit %d, its last line is no log line (%v):\n%s", code, err, out)
			}
			why, _ := last["error"].(string)
			if code != c.exit || last["code"] != cli.CodeServeFailed || last["exit_code"] != float64(c.exit) || !strings.Contains(why, "("+c.code+")") {
				t.Errorf("a replica of another build: exit %d, last line %v; want exit %d and a %s line naming %s", code, last, c.exit, cli.CodeServeFailed, c.code)
			}
			builtAs, _ := last["version"].(string)
			commit, _ := last["commit"].(string)
			if builtAs == "" || commit == "" || !strings.Contains(version, "version "+builtAs+"\n") || !strings.Contains(version, "commit  "+commit) {
				t.Errorf("a replica of another build: last line %v; want the version and commit `ql version` prints:\n%s", last, version)
			}
			for _, line := range lines {
				if !strings.HasPrefix(line, "{") {
					t.Errorf("a replica of another build wrote a line that is no log line: %q", line)
				}
			}
		})
	}
}
