package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// shownRevision is the revision `projects show -o json` prints of project
// api, with the rest of what it prints checked against the text.
func shownRevision(t *testing.T, where ...string) string {
	t.Helper()
	code, out, errOut := ql(t, append([]string{"projects", "show", "api", "-o", "json"}, where...)...)
	var p struct{ ID, Name, Status, Revision string }
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil || p.Name != "api" || p.Status != "active" || !strings.HasPrefix(p.Revision, "sha256:") {
		t.Fatalf("projects show api -o json %v: exit %d %q %q", where, code, out, errOut)
	}
	code, text, errOut := ql(t, append([]string{"projects", "show", "api"}, where...)...)
	if code != 0 || !strings.Contains(text, "revision  "+p.Revision+"\n") || !strings.Contains(text, "id        "+p.ID+"\n") {
		t.Fatalf("projects show api %v: exit %d %q %q; want its id and revision %s", where, code, text, errOut, p.Revision)
	}
	return p.Revision
}

// `ql apply --if-match` publishes only over the revision `ql projects
// show` printed: a project changed since is refused, exit 4, naming both
// revisions and the command that reads it again, nothing applied, unless
// the file changes nothing there; over the revision now it publishes.
// Over --api-url the same, by If-Match.
// Not parallel: it sets $QL_TOKEN.
func TestApplyIfMatchPublishesOnlyOverTheRevisionProjectsShowPrinted(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	read := shownRevision(t, "--data-dir", dir)
	applyDefs(t, dir, strings.Replace(quietFile, `"true"`, `"echo one"`, 1))
	now := shownRevision(t, "--data-dir", dir)
	edited := writeFile(t, dir, "edited.yaml", strings.Replace(quietFile, `"true"`, `"echo two"`, 1))
	code, out, errOut := ql(t, "apply", "-f", edited, "--if-match", read, "--data-dir", dir)
	if code != 4 || out != "" || !strings.Contains(errOut, `project "api" changed since revision `+read+" (now "+now+")") ||
		!strings.Contains(errOut, "nothing was applied") || !strings.Contains(errOut, "`ql-edge projects show api --data-dir "+dir+"`") {
		t.Fatalf("apply --if-match over a revision since moved: exit %d %q %q; want exit 4 naming both revisions and how to read it again", code, out, errOut)
	}
	if code, out, errOut := ql(t, "apply", "-f", edited, "--if-match", read, "--dry-run", "--data-dir", dir); code != 4 || !strings.Contains(errOut, "changed since revision "+read) {
		t.Fatalf("a dry run --if-match over a revision since moved: exit %d %q %q; want it refused as the apply is", code, out, errOut)
	}
	if got := shownRevision(t, "--data-dir", dir); got != now {
		t.Fatalf("the refused apply moved the revision from %s to %s", now, got)
	}
	if code, out, errOut := ql(t, "apply", "-f", edited, "--if-match", now, "--data-dir", dir); code != 0 || !strings.Contains(out, "task noop: updated") {
		t.Fatalf("apply --if-match over the revision now: exit %d %q %q", code, out, errOut)
	}
	now = shownRevision(t, "--data-dir", dir)
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", newToken(t, dir, "admin", "admin"))
	if got := shownRevision(t, "--api-url", base); got != now {
		t.Fatalf("projects show --api-url: revision %s; the database's is %s", got, now)
	}
	third := writeFile(t, dir, "third.yaml", strings.Replace(quietFile, `"true"`, `"echo three"`, 1))
	code, out, errOut = ql(t, "apply", "-f", third, "--if-match", read, "--api-url", base)
	if code != 4 || out != "" || !strings.Contains(errOut, "server: ") || !strings.Contains(errOut, "changed since revision "+read+" (now "+now+")") {
		t.Fatalf("apply --if-match --api-url over a revision since moved: exit %d %q %q; want exit 4 naming both revisions", code, out, errOut)
	}
	// The file applied over the revision now, asked again over the one it
	// moved from (its answer lost), changes nothing: unchanged, exit 0.
	for _, where := range [][]string{{"--api-url", base}, {"--api-url", base, "--dry-run"}} {
		if code, out, errOut := ql(t, append([]string{"apply", "-f", edited, "--if-match", read}, where...)...); code != 0 || !strings.Contains(out, "1 project, 1 task and 1 trigger unchanged") {
			t.Fatalf("apply %v --if-match over the revision its own file moved from: exit %d %q %q; want everything unchanged", where, code, out, errOut)
		}
	}
	if code, out, errOut := ql(t, "apply", "-f", third, "--if-match", now, "--api-url", base); code != 0 || !strings.Contains(out, "task noop: updated") {
		t.Fatalf("apply --if-match --api-url over the revision now: exit %d %q %q", code, out, errOut)
	}
}
