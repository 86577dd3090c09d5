package singlecli

import (
	"strings"
	"testing"
)

// ql apply -o json of a file naming another project's secret exits 2 as
// every mistake in a file does, and its JSON error carries the reason
// secret_of_another_project with its params, as another file error's
// carries its own (defs_unknown_field), so a script tells them apart.
func TestApplyJSONOfAFileErrorExitsTwoWithTheErrorsReason(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	for _, c := range []struct{ defs, reason string }{
		{"project: alpha\ntasks:\n  - {name: job, script: \"true\", env: {TOKEN: {secret: beta/token}}}\n", `"reason":"secret_of_another_project","params":{"from":"alpha","name":"beta/token","project":"beta"}`},
		{"project: alpha\ntasks:\n  - {name: job, script: \"true\", bogus: 1}\n", `"reason":"defs_unknown_field"`},
	} {
		code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "alpha.yaml", c.defs), "-o", "json", "--data-dir", dir)
		if code != 2 || !strings.Contains(errOut, `{"error":{"code":"invalid",`+c.reason) {
			t.Errorf("apply -o json of %q: %d %q %q; want exit 2 with %s", c.defs, code, out, errOut, c.reason)
		}
	}
}
