package replica

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

func TestCLIAppliesWithTheAdminRoleAndReadsWithTheRuntimeRole(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	admin, runtime := env.URL(pgstore.RoleAdmin), env.URL(pgstore.RoleRuntime)
	file := filepath.Join(t.TempDir(), "defs.yaml")
	if err := os.WriteFile(file, []byte(clustertest.Triggers("cli", 2, clustertest.QuietCron())), 0o600); err != nil {
		t.Fatal(err)
	}

	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "apply", "-f", file)
	if code != 5 || !strings.Contains(out, "needs the admin role's URL") {
		t.Fatalf("apply as runtime: exit %d %q; want a message naming the admin role", code, out)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "apply", "-f", file); code != 0 || !strings.Contains(out, "trigger t00001: created") {
		t.Fatalf("apply as admin: exit %d %q", code, out)
	}

	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "cli-seeder", 30*time.Second)
	if sum, err := schedule.Round(context.Background(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 2 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}

	code, out = runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "runs", "list", "-o", "json")
	var list struct{ Runs []struct{ ID, State string } }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Runs) != 2 || list.Runs[0].State != "queued" {
		t.Fatalf("runs list: exit %d %q", code, out)
	}
	code, out = runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "runs", "list")
	if code != 0 || !strings.Contains(out, "PROJECT") || !strings.Contains(out, " cli ") || !strings.Contains(out, " t0000") {
		t.Fatalf("runs list table: exit %d %q; want project and trigger names", code, out)
	}
	code, out = runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "runs", "show", list.Runs[0].ID)
	if code != 0 || !strings.Contains(out, "run.created") || !strings.Contains(out, "run.queued") || !strings.Contains(out, "remote_worker") ||
		!strings.Contains(out, "trigger    t0000") {
		t.Fatalf("runs show: exit %d %q", code, out)
	}
	code, out = runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "triggers", "list")
	if code != 0 || !strings.Contains(out, "t00000") || !strings.Contains(out, "NEXT FIRE") {
		t.Fatalf("triggers list: exit %d %q", code, out)
	}
	// The same URL without its password on the command line, the password
	// in PGPASSWORD; the old variable is refused with the new name.
	u, err := url.Parse(runtime)
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	u.User = url.User(u.User.Username())
	code, out = runQL(t, bin, []string{"PGPASSWORD=" + password}, "triggers", "list", "--database-url", u.String())
	if code != 0 || !strings.Contains(out, "t00000") {
		t.Fatalf("triggers list --database-url: exit %d %q", code, out)
	}
	code, out = runQL(t, bin, []string{"QL_PG_URL=" + runtime}, "runs", "list")
	if code != 2 || !strings.Contains(out, "QL_PG_URL was renamed QL_DATABASE_URL; set that instead") {
		t.Fatalf("runs list with QL_PG_URL: exit %d %q; want exit 2 naming QL_DATABASE_URL", code, out)
	}
	code, out = runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "runs", "list")
	if code != 5 || !strings.Contains(out, "needs the runtime role's URL") {
		t.Fatalf("runs list as admin: exit %d %q; want a message naming the runtime role", code, out)
	}
	// A role that may only connect (and use the schema): every command is
	// refused at its first read as the credential that may not (exit 5),
	// naming the roles that may, never as a conflict.
	connectOnly := env.Prefix + "connect_only"
	for _, stmt := range []string{"CREATE ROLE " + connectOnly + " LOGIN PASSWORD 'connect-only-pw'",
		"GRANT CONNECT ON DATABASE " + pgx.Identifier{env.DB.Name}.Sanitize() + " TO " + connectOnly, "GRANT USAGE ON SCHEMA qinglong TO " + connectOnly} {
		if _, err := env.Super.Exec(t.Context(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		for _, stmt := range []string{"DROP OWNED BY " + connectOnly, "DROP ROLE " + connectOnly} {
			if _, err := env.Super.Exec(context.Background(), stmt); err != nil {
				t.Errorf("%s: %v", stmt, err)
			}
		}
	})
	u.User = url.UserPassword(connectOnly, "connect-only-pw")
	for _, args := range [][]string{{"runs", "list"}, {"triggers", "list"}, {"apply", "-f", file}} {
		code, out = runQL(t, bin, []string{"QL_DATABASE_URL=" + u.String()}, args...)
		if code != 5 || !strings.Contains(out, "may not read QingLong's schema") || !strings.Contains(out, "QL_DATABASE_URL=postgres://ql_runtime@host/db") {
			t.Errorf("%v as a role that may only connect: exit %d %q; want exit 5 naming the runtime and the admin role", args, code, out)
		}
	}
}
