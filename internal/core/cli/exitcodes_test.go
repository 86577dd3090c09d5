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
// nothing added to what the command printed; everything else that fails,
// a name of nothing included, exits 1.
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
		{qlerror.New(qlerror.Conflict, "the trigger changed meanwhile"), ExitFailed, "changed meanwhile", false},
		{qlerror.New(qlerror.MutationDrift, "the request id was used for another request"), ExitFailed, "another request", false},
		{qlerror.New(qlerror.FailedPrecondition, "the trigger is disabled"), ExitFailed, "disabled", false},
		{qlerror.New(qlerror.Unavailable, "cannot reach the database"), ExitFailed, "cannot reach", false},
		{qlerror.Wrap(qlerror.Unavailable, qlerror.New(qlerror.Invalid, "inner"), "the server answered"), ExitFailed, "the server answered", false},
		{fmt.Errorf("disk full"), ExitFailed, "disk full", false},
		{errRefused, ExitRefused, "", false},
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
	for _, want := range []string{"Exit codes:", "\n  0 ", "\n  1 ", "\n  2    the input is wrong", "\n  3    the trigger's overlap policy refused", "\n  130 "} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("ql --help: %d, lacks %q:\n%s", code, want, out)
		}
	}
}
