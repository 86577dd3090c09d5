package cli

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/httpapi"
)

// `ql tokens --help` says what each scope may do as the API's route table
// has it: every action of a route needing read, operate or admin is named
// (operate cancels, re-runs and retries notifications, not only pauses,
// resumes, runs now and backfills), so the help cannot fall behind a route.
func TestTokensHelpNamesWhatEachScopeMayDoAsTheRouteTableHasIt(t *testing.T) {
	code, out, errOut := ql(t, "tokens", "--help")
	if code != 0 {
		t.Fatalf("tokens --help: %d %q", code, errOut)
	}
	help := strings.Join(strings.Fields(out), " ")
	for _, scope := range []apitoken.Scope{apitoken.Read, apitoken.Operate, apitoken.Admin} {
		actions := httpapi.Actions(scope)
		if len(actions) == 0 {
			t.Fatalf("the route table has no route needing %s", scope)
		}
		for _, a := range actions {
			if !strings.Contains(help, a) {
				t.Errorf("tokens --help does not say that %s may %s:\n%s", scope, a, out)
			}
		}
	}
}

// A create without --scope says the flag is required and what it takes,
// not that an empty scope is wrong.
func TestTokensCreateWithoutScopeSaysTheFlagIsRequired(t *testing.T) {
	t.Parallel()
	code, _, stderr := ql(t, "tokens", "create", "x")
	if code != 2 || !strings.Contains(stderr, "--scope is required: give read, operate or admin") || strings.Contains(stderr, `--scope ""`) {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}
