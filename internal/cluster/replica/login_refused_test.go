package replica

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A replica whose login PostgreSQL refuses stops at once with a line whose
// db_code, login_refused, says what to check (the role's password, its
// LOGIN, pg_hba.conf), not database_error; the line never shows the
// password tried.
func TestAReplicasRefusedLoginIsLoggedAsLoginRefused(t *testing.T) {
	t.Parallel()
	srv := pgtest.NewPasswordServer(t)
	db := srv.NewDatabase(t)
	super, err := pgx.Connect(t.Context(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close(context.Background())
	const role, wrong = "ql_runtime", "Wrong-pw-0815"
	if _, err := super.Exec(t.Context(), "CREATE ROLE "+role+" LOGIN PASSWORD 'Right-pw-4242-4242'"); err != nil {
		t.Fatal(err)
	}
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s", role, wrong, srv.Port(), db.Name),
		ReplicaID: "replica-refused", HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", StopTimeout: 2 * time.Second}
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	logs, err, timedOut := serveUntilItStops(s)
	if err == nil || timedOut {
		t.Fatalf("serve returned %v (timed out: %v); want it to stop at once on the refused login:\n%s", err, timedOut, logs)
	}
	fatal := logs.withCode(CodeActivationFatal)
	if len(fatal) != 1 || fatal[0]["db_code"] != "login_refused" {
		t.Fatalf("want one %s line with db_code login_refused:\n%s", CodeActivationFatal, logs)
	}
	if !strings.Contains(fmt.Sprint(fatal[0]["cause"]), "28P01") || strings.Contains(logs.String(), wrong) {
		t.Fatalf("the line %v; want the refusal's SQLSTATE as its cause and never the password tried", fatal[0])
	}
	if closed := logs.withCode(CodeAdmissionClosed); len(closed) != 1 || closed[0]["msg"] != "stopping before admission opened: releasing what started" {
		t.Fatalf("want one %s line saying admission never opened, not that it drains:\n%s", CodeAdmissionClosed, logs)
	}
}
