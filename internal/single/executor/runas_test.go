package executor

import (
	"os"
	"os/user"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
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

func TestATaskRunsAsItsRunAsAccount(t *testing.T) {
	t.Parallel()
	uid, gid := nobody(t)
	h := newHarness(t)
	c := shell(`id -u; id -g; touch own-file && echo wrote; echo "$HOME $USER"`, time.Minute)
	c.RunAs = task.RunAs{User: "nobody"}
	a, log := h.runOne(t, c, dispatcherOpts{})
	u, _ := user.Lookup("nobody")
	if want := uid + "\n" + gid + "\nwrote\n" + u.HomeDir + " nobody\n"; a.State != run.AttemptSucceeded || log != want {
		t.Fatalf("attempt %s, log %q; want %q (the ids and home of nobody, and a writable working directory)", a.State, log, want)
	}
}

func TestTheServerDefaultAccountAppliesToTasksWithoutRunAs(t *testing.T) {
	t.Parallel()
	uid, _ := nobody(t)
	h := newHarness(t)
	a, log := h.runOne(t, shell(`id -u`, time.Minute), dispatcherOpts{runAs: task.RunAs{User: "nobody"}})
	if a.State != run.AttemptSucceeded || log != uid+"\n" {
		t.Fatalf("attempt %s, log %q; want uid %s", a.State, log, uid)
	}
}

func TestAnUnknownRunAsUserFailsTheAttemptWithAClearError(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := shell(`echo should not run`, time.Minute)
	c.RunAs = task.RunAs{User: "no-such-user-ql"}
	a, log := h.runOne(t, c, dispatcherOpts{})
	if a.State != run.AttemptFailed || a.ErrorCode != process.ErrorCodeRunAs {
		t.Fatalf("attempt %s (%s); want failed with %s", a.State, a.ErrorCode, process.ErrorCodeRunAs)
	}
	if !strings.Contains(log, `runAs user "no-such-user-ql" does not exist`) || strings.Contains(log, "should not run") {
		t.Fatalf("log %q does not explain the missing account, or the command ran", log)
	}
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
