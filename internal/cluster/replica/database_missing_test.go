package replica

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A replica whose URL names a database the server does not have stops at
// once with a line whose db_code, database_missing, and error say which
// database and what to do (create it and install QingLong in it, or
// correct the URL), not database_error; the line never shows the password.
func TestAReplicasMissingDatabaseIsLoggedAsDatabaseMissing(t *testing.T) {
	t.Parallel()
	// The shared server trusts every login: the password is there to be
	// looked for in the logs.
	const password = "Right-pw-4242-4242"
	u, err := url.Parse(pgtest.Server(t).SuperuserURL("ql_nowhere"))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: u.String(),
		ReplicaID: "replica-nowhere", HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", StopTimeout: 2 * time.Second}
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	logs, err, timedOut := serveUntilItStops(s)
	if err == nil || timedOut {
		t.Fatalf("serve returned %v (timed out: %v); want it to stop at once on the missing database:\n%s", err, timedOut, logs)
	}
	fatal := logs.withCode(CodeActivationFatal)
	if len(fatal) != 1 || fatal[0]["db_code"] != "database_missing" {
		t.Fatalf("want one %s line with db_code database_missing:\n%s", CodeActivationFatal, logs)
	}
	msg := fmt.Sprint(fatal[0]["error"])
	for _, want := range []string{"database ql_nowhere does not exist", `CREATE DATABASE "ql_nowhere"`, "`ql db migrate` and `ql db roles`"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the line's error %q lacks %q", msg, want)
		}
	}
	if !strings.Contains(fmt.Sprint(fatal[0]["cause"]), "3D000") || strings.Contains(logs.String(), password) {
		t.Fatalf("the line %v; want the SQLSTATE as its cause and never the password", fatal[0])
	}
}
