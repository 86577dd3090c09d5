package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The help of triggers pause and resume names both cluster roles that may
// pause (the runtime role too, as the replicas' API and console do) and
// says run now still works on a paused trigger, as the commands behave.
func TestPauseAndResumeHelpSaysWhoMayPauseAndThatRunNowStillWorks(t *testing.T) {
	full := Options{Binary: "ql", OpenPostgres: func(context.Context, string) (*Backend, error) { return nil, nil }}
	for _, verb := range []string{"pause", "resume"} {
		var out, errOut bytes.Buffer
		if code := Main(t.Context(), full, []string{"triggers", verb, "--help"}, &out, &errOut); code != 0 {
			t.Fatalf("triggers %s --help: %d %q", verb, code, errOut.String())
		}
		if help := out.String(); !strings.Contains(help, "needs the admin or the runtime role's URL") {
			t.Errorf("triggers %s --help: %q; want both roles that may pause named", verb, help)
		}
	}
	var out bytes.Buffer
	Main(t.Context(), full, []string{"triggers", "pause", "--help"}, &out, &bytes.Buffer{})
	if !strings.Contains(out.String(), "`ql triggers run` still runs it on request") {
		t.Errorf("triggers pause --help: %q; want it to say run now still works", out.String())
	}
}
