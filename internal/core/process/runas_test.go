package process

import (
	"os"
	"os/user"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// nobody returns the uid and gid of the nobody account; switching to it
// needs root, which the suite has here and in CI.
func nobody(t *testing.T) (uid, gid string) {
	t.Helper()
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "switching accounts needs root")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		skipOutsideCI(t, "no nobody account: "+err.Error())
	}
	return u.Uid, u.Gid
}

// skipOutsideCI skips a test whose precondition this machine lacks, but
// fails it under CI, whose machine must have everything the suite needs.
func skipOutsideCI(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI must provide it)", why)
	}
	t.Skip(why)
}

func TestCheckRunAsRejectsUnknownAccounts(t *testing.T) {
	t.Parallel()
	for _, r := range []task.RunAs{{User: "no-such-user-ql"}, {User: "root", Group: "no-such-group-ql"}} {
		err := CheckRunAs(r)
		if !qlerror.Is(err, qlerror.NotFound) || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("CheckRunAs(%s): %v; want not found (a name of nothing, exit 1) naming the missing account", r, err)
		}
	}
	if err := CheckRunAs(task.RunAs{User: "0"}); err != nil && os.Geteuid() == 0 {
		t.Errorf("CheckRunAs(0) as root: %v", err)
	}
}
