package singlecli

import (
	"strings"
	"testing"
)

// Not parallel: sets the environment. `ql retention run` refusing a
// retention setting nobody typed says where it came from, as serve does:
// the variable, or the --config file's key as the file writes it
// (retention.runs for the section, retention-runs for the flag's name),
// and serve names a section's key the same way.
func TestARefusedRetentionSettingSaysWhereItCameFrom(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", goodFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %s", code, errOut)
	}
	section := writeFile(t, t.TempDir(), "section.yaml", "retention: {runs: 36601}\n")
	flat := writeFile(t, t.TempDir(), "flat.yaml", "retention-runs: 36601\n")
	for _, c := range []struct {
		env  string
		args []string
		from string
	}{
		{"36601", []string{"retention", "run", "--dry-run", "--data-dir", dir}, "(set by QL_RETENTION_RUNS in the environment)"},
		{"", []string{"retention", "run", "--dry-run", "--data-dir", dir, "--config", section}, "(set by retention.runs in --config " + section + ")"},
		{"", []string{"retention", "run", "--dry-run", "--data-dir", dir, "--config", flat}, "(set by retention-runs in --config " + flat + ")"},
		{"", []string{"serve", "--data-dir", dir, "--config", section}, "(set by retention.runs in --config " + section + ")"},
		{"", []string{"retention", "run", "--dry-run", "--data-dir", dir, "--retention-runs", "36601"}, ""},
	} {
		t.Setenv("QL_RETENTION_RUNS", c.env)
		code, _, errOut := ql(t, c.args...)
		if code != 2 || !strings.Contains(errOut, "--retention-runs") || !strings.Contains(errOut, c.from) || (c.from == "" && strings.Contains(errOut, "(set by")) {
			t.Errorf("ql %s with QL_RETENTION_RUNS=%q: exit %d %q; want exit 2 naming --retention-runs and %q", strings.Join(c.args, " "), c.env, code, errOut, c.from)
		}
	}
}
