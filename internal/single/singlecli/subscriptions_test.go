package singlecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `subscriptions add` publishes the converter's pull task and trigger
// labelled as the console's form does, refusing what the form refuses (a
// URL of another transport, a name taken); `list` shows it without the
// URL's token; `rm` ends it, its folder kept unless --with-folder; each
// change is in the audit trail by name and URL, never the token.
func TestTheSubscriptionsCommandsAddListAndRemoveAsTheConsoleDoes(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, "project: demo\n")
	add := func(args ...string) (int, string, string) {
		return ql(t, append(append([]string{"subscriptions", "add"}, args...), "--project", "jd", "--cron", "0 */6 * * *", "--tz", "Asia/Shanghai", "--data-dir", dir)...)
	}
	if code, out, errOut := add("https://ghp_TOKEN@github.com/Owner/Scripts.git", "--branch", "main", "--match", "jd_"); code != 0 ||
		!strings.Contains(out, "added subscription repo-owner-scripts-main to project jd, pulling into Owner_Scripts_main") || !strings.Contains(out, "`ql-edge triggers run jd/repo-owner-scripts-main`") {
		t.Fatalf("subscriptions add: exit %d %q %q", code, out, errOut)
	}
	for _, c := range []struct {
		url  string
		exit int
		says string
	}{
		{"ext::sh", 2, "is of no form a subscription takes"},
		{"git@github.com:Owner/Scripts.git", 4, "a subscription named repo-owner-scripts exists already"},
	} {
		if c.exit == 4 {
			if code, _, errOut := add("https://github.com/Owner/Scripts.git"); code != 0 {
				t.Fatalf("the second add: %d %s", code, errOut)
			}
		}
		if code, _, errOut := add(c.url); code != c.exit || !strings.Contains(errOut, c.says) {
			t.Errorf("subscriptions add %s: exit %d %q; want %d saying %q", c.url, code, errOut, c.exit, c.says)
		}
	}
	code, out, _ := ql(t, "subscriptions", "list", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "repo-owner-scripts-main") || !strings.Contains(out, "https://github.com/Owner/Scripts.git") || strings.Contains(out, "TOKEN") ||
		!strings.Contains(out, "Owner_Scripts_main") || !strings.Contains(out, "jd_") {
		t.Fatalf("subscriptions list: exit %d\n%s", code, out)
	}
	for _, name := range []string{"Owner_Scripts_main", "Owner_Scripts"} {
		if err := os.MkdirAll(filepath.Join(dir, "scripts", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errOut := ql(t, "subscriptions", "rm", "repo-owner-scripts-main", "--data-dir", dir); code != 0 || !strings.Contains(out, "its folder Owner_Scripts_main stays") {
		t.Fatalf("subscriptions rm: exit %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "subscriptions", "rm", "repo-owner-scripts", "--with-folder", "--data-dir", dir); code != 0 || !strings.Contains(out, "its folder Owner_Scripts deleted") {
		t.Fatalf("subscriptions rm --with-folder: exit %d %q %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "scripts", "Owner_Scripts_main")); err != nil {
		t.Errorf("the folder kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "scripts", "Owner_Scripts")); !os.IsNotExist(err) {
		t.Errorf("the folder asked deleted: %v", err)
	}
	if code, out, _ := ql(t, "subscriptions", "list", "--data-dir", dir); code != 0 || !strings.Contains(out, "no subscriptions") {
		t.Errorf("subscriptions list after rm: exit %d %q", code, out)
	}
	code, out, _ = ql(t, "audit", "list", "--data-dir", dir)
	if code != 0 || strings.Count(out, "subscription.created") != 2 || strings.Count(out, "subscription.deleted") != 2 || strings.Contains(out, "TOKEN") {
		t.Errorf("audit list: exit %d\n%s", code, out)
	}
	if code, _, errOut := ql(t, "subscriptions", "rm", "repo-nope", "--data-dir", dir); code != 1 || !strings.Contains(errOut, `there is no subscription named "repo-nope"`) {
		t.Errorf("rm of no subscription: exit %d %q", code, errOut)
	}
}
