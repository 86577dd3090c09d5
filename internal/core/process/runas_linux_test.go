//go:build linux

package process

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/task"
)

const helperEnv = "QL_TEST_RUNAS_HELPER"

// A server without CAP_SETUID/CAP_SETGID (here: root with both removed
// from its bounding set by setpriv) is told why it cannot switch accounts
// and what to do.
func TestRunAsWithoutThePrivilegeIsAClearError(t *testing.T) {
	t.Parallel()
	nobody(t)
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		skipOutsideCI(t, "setpriv (util-linux) is not installed")
	}
	cmd := exec.Command(setpriv, "--bounding-set=-setuid,-setgid", os.Args[0], "-test.run=^TestRunAsHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	for _, want := range []string{"CapEff without setuid", "needs a server started as root (or with CAP_SETUID and CAP_SETGID)", "dedicated service account"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("helper output lacks %q:\n%s", want, out)
		}
	}
}

// TestRunAsHelper runs only inside TestRunAsWithoutThePrivilegeIsAClearError.
func TestRunAsHelper(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("helper process only")
	}
	if canSwitchUser() != nil {
		fmt.Println("CapEff without setuid")
	}
	fmt.Println(CheckRunAs(task.RunAs{User: "nobody"}))
}
