package singlecli

import (
	"strings"
	"testing"
)

// `ql triggers disable|enable --if-match` changes the trigger only over
// the revision `ql projects show` printed: a project changed since is
// refused, exit 4, naming both revisions, nothing written; over the
// revision now it publishes. On the database and over --api-url alike.
// Not parallel: it sets $QL_TOKEN.
func TestTriggersDisableIfMatchPublishesOnlyOverTheRevisionProjectsShowPrinted(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	read := shownRevision(t, "--data-dir", dir)
	applyDefs(t, dir, strings.Replace(quietFile, `"true"`, `"echo one"`, 1))
	now := shownRevision(t, "--data-dir", dir)
	code, out, errOut := ql(t, "triggers", "disable", "api/yearly", "--if-match", read, "--data-dir", dir)
	if code != 4 || out != "" || !strings.Contains(errOut, `project "api" changed since revision `+read+" (now "+now+")") {
		t.Fatalf("triggers disable --if-match over a revision since moved: exit %d %q %q; want exit 4 naming both revisions", code, out, errOut)
	}
	if got := shownRevision(t, "--data-dir", dir); got != now {
		t.Fatalf("the refused disable moved the revision from %s to %s", now, got)
	}
	if code, out, errOut := ql(t, "triggers", "disable", "api/yearly", "--if-match", now, "--data-dir", dir); code != 0 || !strings.Contains(out, "disabled as revision") {
		t.Fatalf("triggers disable --if-match over the revision now: exit %d %q %q", code, out, errOut)
	}
	disabled := shownRevision(t, "--data-dir", dir)
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", newToken(t, dir, "admin", "admin"))
	code, out, errOut = ql(t, "triggers", "enable", "api/yearly", "--if-match", now, "--api-url", base)
	if code != 4 || out != "" || !strings.Contains(errOut, "changed since revision "+now+" (now "+disabled+")") {
		t.Fatalf("triggers enable --if-match --api-url over a revision since moved: exit %d %q %q; want exit 4 naming both revisions", code, out, errOut)
	}
	if code, out, errOut := ql(t, "triggers", "enable", "api/yearly", "--if-match", disabled, "--api-url", base); code != 0 || !strings.Contains(out, "enabled as revision") {
		t.Fatalf("triggers enable --if-match --api-url over the revision now: exit %d %q %q", code, out, errOut)
	}
}
