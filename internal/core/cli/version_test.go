package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every binary answers --version with what `version` prints (ql and
// ql-edge refused the flag as unknown while ql-worker took it).
func TestTheVersionFlagPrintsWhatTheVersionCommandPrints(t *testing.T) {
	t.Parallel()
	want := versionText()
	if !strings.HasPrefix(want, "version "+Version+"\n") {
		t.Fatalf("the version text %q does not begin with the version", want)
	}
	for _, binary := range []string{"ql", "ql-edge"} {
		for _, args := range [][]string{{"version"}, {"--version"}} {
			code, out, stderr := qlWith(t, Options{Binary: binary}, args...)
			if code != 0 || out != want {
				t.Errorf("%s %s: exit %d, printed %q (stderr %q); want exit 0 printing %q", binary, args[0], code, out, stderr, want)
			}
		}
	}
	var out, errOut bytes.Buffer
	worker := &cobra.Command{Use: "ql-worker", RunE: func(*cobra.Command, []string) error { return nil }}
	if code := MainSingle(context.Background(), worker, []string{"--version"}, &out, &errOut); code != 0 || out.String() != want {
		t.Errorf("ql-worker --version: exit %d, printed %q (stderr %q); want %q", code, out.String(), errOut.String(), want)
	}
}
