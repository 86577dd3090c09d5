package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Every command exits by one rule: input refused as invalid wherever it
// was found (the command line, a store, a server's answer) exits 2, like
// a usage error; a trigger's policy refusing the request exits 3 with
// nothing added to what the command printed; a request that conflicts
// with what exists (a name taken, a state that does not allow it, a
// change made meanwhile) exits 4; a credential that may not do it exits
// 5; a Run followed with --exit-status that ended otherwise than
// succeeded exits 6 with nothing added to what the follower said; `db
// check` that found the file corrupt exits 7 with nothing added to its
// report;
// everything else that fails, a name of nothing included, exits 1 — even
// when its words are those of one of cobra's usage errors, which only
// its own untyped errors are.
func TestAnErrorsCodeDecidesTheExitCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err      error
		code     int
		stderr   string
		helpHint bool
	}{
		{Usagef("--from is required"), ExitUsage, "ql: --from is required", true},
		{qlerror.New(qlerror.Invalid, "backfill: the window's end (--to) is in the future"), ExitUsage, "ql: backfill: the window's end (--to) is in the future", false},
		{fmt.Errorf("listing: %w", qlerror.New(qlerror.Invalid, "give the after as a run id")), ExitUsage, "give the after as a run id", false},
		{qlerror.New(qlerror.NotFound, "no trigger named \"x\""), ExitFailed, "no trigger named", false},
		{qlerror.New(qlerror.Conflict, "the trigger changed meanwhile"), ExitConflict, "changed meanwhile", false},
		{qlerror.New(qlerror.Conflict, "a user named \"alice\" exists"), ExitConflict, "exists", false},
		{qlerror.New(qlerror.MutationDrift, "the request id was used for another request"), ExitConflict, "another request", false},
		{qlerror.New(qlerror.FailedPrecondition, "the trigger is disabled"), ExitConflict, "disabled", false},
		{fmt.Errorf("server: %w", qlerror.New(qlerror.FailedPrecondition, "run is queued")), ExitConflict, "queued", false},
		{qlerror.New(qlerror.Unauthenticated, "the API token is revoked"), ExitDenied, "revoked", false},
		{qlerror.New(qlerror.PermissionDenied, "needs a token of scope admin"), ExitDenied, "scope admin", false},
		{qlerror.New(qlerror.Internal, "broken invariant"), ExitFailed, "broken", false},
		{qlerror.New(qlerror.Unavailable, "cannot reach the database"), ExitFailed, "cannot reach", false},
		{qlerror.Wrap(qlerror.Unavailable, qlerror.New(qlerror.Invalid, "inner"), "the server answered"), ExitFailed, "the server answered", false},
		{fmt.Errorf("disk full"), ExitFailed, "disk full", false},
		{qlerror.New(qlerror.Unavailable, "the database is unavailable; check that PostgreSQL runs at the URL's host and port and accepts connections, then retry"), ExitFailed, "accepts connections", false},
		{qlerror.New(qlerror.NotFound, "no trigger named \"walk/accepts x\""), ExitFailed, "walk/accepts x", false},
		{fmt.Errorf("writing the log: invalid argument"), ExitFailed, "invalid argument", false},
		{fmt.Errorf("accepts 1 arg(s), received 0"), ExitUsage, "accepts 1 arg(s)", true},
		{fmt.Errorf("unknown command \"x\" for \"ql\""), ExitUsage, "unknown command", true},
		{errRefused, ExitRefused, "", false},
		{errNotSucceeded, ExitNotSucceeded, "", false},
		{errCorrupt, ExitCorrupt, "", false},
	} {
		root := &cobra.Command{Use: "ql", SilenceUsage: true, SilenceErrors: true}
		root.AddCommand(&cobra.Command{Use: "do", RunE: func(*cobra.Command, []string) error { return c.err }})
		var out, errOut bytes.Buffer
		code := execute(context.Background(), root, "ql", []string{"do"}, &out, &errOut)
		if code != c.code || !strings.Contains(errOut.String(), c.stderr) || (c.stderr == "") != (errOut.Len() == 0) ||
			strings.Contains(errOut.String(), "--help") != c.helpHint {
			t.Errorf("%v: exit %d, stderr %q; want %d, stderr with %q (a --help hint: %t)", c.err, code, errOut.String(), c.code, c.stderr, c.helpHint)
		}
	}
}

// `ql --help` ends with the exit codes, each of them.
func TestTheRootHelpListsTheExitCodes(t *testing.T) {
	t.Parallel()
	code, out, _ := ql(t, "--help")
	for _, want := range []string{"Exit codes:", "\n  0 ", "\n  1 ", "\n  2    the input is wrong", "\n  3    the trigger's overlap policy refused",
		"\n  4    the request conflicts with what exists", "\n  5    not allowed", "\n  6    --exit-status: the Run ended, not succeeded", "\n  7    db check: the database file is corrupt", "\n  130 "} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("ql --help: %d, lacks %q:\n%s", code, want, out)
		}
	}
}
