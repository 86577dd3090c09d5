package pgstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A statement_timeout set by hand on the runtime role, too short for the
// readiness checks, fails `ql db check` naming that setting, where it
// was set and what to do, as a configuration error: not as a statement
// cancelled by chance to retry later.
func TestACheckCancelledByTheRolesStatementTimeoutNamesTheSetting(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// 1 ms: shorter than the schema check's catalog reads take.
	e.exec(t, `ALTER ROLE "`+e.roles.Runtime+`" SET statement_timeout = '1ms'`)
	err := CheckRuntime(t.Context(), e.url(RoleRuntime), e.roles)
	msg := fmt.Sprint(err)
	if !qlerror.Is(err, qlerror.FailedPrecondition) || Transient(err) {
		t.Fatalf("%v (code %s): want a configuration error, not one to retry", err, qlerror.CodeOf(err))
	}
	for _, want := range []string{"statement_timeout = 1ms", "the role's own (ALTER ROLE", "ql db roles"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q, want it to say %q", msg, want)
		}
	}
	if strings.Contains(msg, "retry later") {
		t.Errorf("%q tells to retry a setting that fails every time", msg)
	}
}
