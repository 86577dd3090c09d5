package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// -v is the root's --version and no command's shorthand: `apply -v`, meant
// as --verbose, is refused saying to give --verbose and what -v is, and -v
// after any other command says where it prints the version; each binary
// names itself. apply's help says it has no -v.
func TestVIsTheVersionAtTheRootAndARefusalAfterACommandSaysWhatToGive(t *testing.T) {
	t.Parallel()
	run := func(binary string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := MainIn(context.Background(), Options{Binary: binary}, args, strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	for _, binary := range []string{"ql", "ql-edge"} {
		if code, out, _ := run(binary, "-v"); code != 0 || !strings.HasPrefix(out, "version ") {
			t.Errorf("%s -v: exit %d, %q; want the version", binary, code, out)
		}
		code, _, errOut := run(binary, "apply", "-v", "-f", "defs.yaml")
		if code != ExitUsage || !strings.Contains(errOut, "-v is not short for --verbose here; give --verbose (`"+binary+" -v`, before any command, prints the version)") {
			t.Errorf("%s apply -v: exit %d, %q; want exit 2 saying to give --verbose", binary, code, errOut)
		}
		code, _, errOut = run(binary, "runs", "list", "-v")
		if code != ExitUsage || !strings.Contains(errOut, "-v is no flag of "+binary+" runs list; `"+binary+" -v` (before any command) or `"+binary+" version` prints the version") {
			t.Errorf("%s runs list -v: exit %d, %q; want exit 2 saying where -v prints the version", binary, code, errOut)
		}
		if _, out, _ := run(binary, "apply", "--help"); !strings.Contains(out, "(it has no -v: -v before any command prints the version)") {
			t.Errorf("%s apply --help does not say apply has no -v:\n%s", binary, out)
		}
	}
}
