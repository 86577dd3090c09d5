package singlecli

import (
	"strconv"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/crontab"
)

// `subscriptions edit NAME` changes what its flags give and keeps the
// rest, through the console's edit: the stored URL's token is kept when
// no --url is given, a URL making another name is refused, a URL to
// another host drops the credentials given from a secret and says so;
// each edit is in the audit trail as subscription.updated, never with the
// token.
func TestSubscriptionsEditChangesOnlyWhatItsFlagsGiveAsTheConsolesEditDoes(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, "project: demo\n")
	if code, out, errOut := ql(t, "subscriptions", "add", "https://ghp_TOKEN@github.com/Owner/Scripts.git", "--branch", "main", "--match", "jd_", "--exclude", "test_",
		"--project", "jd", "--cron", "0 */6 * * *", "--tz", "Asia/Shanghai", "--data-dir", dir); code != 0 {
		t.Fatalf("subscriptions add: exit %d %q %q", code, out, errOut)
	}
	edit := func(args ...string) (int, string, string) {
		return ql(t, append(append([]string{"subscriptions", "edit"}, args...), "--data-dir", dir)...)
	}
	row := func() []string {
		code, out, errOut := ql(t, "subscriptions", "list", "--data-dir", dir)
		if code != 0 {
			t.Fatalf("subscriptions list: exit %d %q", code, errOut)
		}
		for line := range strings.Lines(out) {
			if f := strings.Fields(line); len(f) > 0 && f[0] == "repo-owner-scripts-main" {
				return f
			}
		}
		t.Fatalf("subscriptions list shows no repo-owner-scripts-main:\n%s", out)
		return nil
	}
	if code, out, errOut := edit("repo-owner-scripts-main", "--cron", "30 */4 * * *", "--disabled"); code != 0 ||
		!strings.Contains(out, "edited subscription repo-owner-scripts-main of project jd, pulling into Owner_Scripts_main") {
		t.Fatalf("subscriptions edit --cron --disabled: exit %d %q %q", code, out, errOut)
	}
	want := "repo-owner-scripts-main jd https://github.com/Owner/Scripts.git main 30 */4 * * * Asia/Shanghai Owner_Scripts_main jd_ test_ false"
	if got := strings.Join(row(), " "); got != want {
		t.Errorf("after editing the cron and disabling: %q; want %q", got, want)
	}
	if code, out, _ := ql(t, "export", "jd", "--data-dir", dir); code != 0 || !strings.Contains(out, crontab.CredentialUserVariable+": ghp_TOKEN") {
		t.Errorf("export after an edit giving no --url: exit %d\n%s\nwant the stored token kept in the task's env", code, out)
	}
	if code, out, errOut := edit("repo-owner-scripts-main", "--match", "", "--enabled"); code != 0 {
		t.Fatalf("subscriptions edit --match '' --enabled: exit %d %q %q", code, out, errOut)
	}
	want = "repo-owner-scripts-main jd https://github.com/Owner/Scripts.git main 30 */4 * * * Asia/Shanghai Owner_Scripts_main - test_ true"
	if got := strings.Join(row(), " "); got != want {
		t.Errorf("after clearing the match and enabling: %q; want %q", got, want)
	}
	if code, _, errOut := edit("repo-owner-scripts-main", "--branch", "dev"); code != 2 || !strings.Contains(errOut, "make the subscription repo-owner-scripts-dev, not repo-owner-scripts-main") {
		t.Errorf("an edit making another name: exit %d %q; want 2, subscription_renamed", code, errOut)
	}

	pull, _ := crontab.PullOf("https://bot@example.com/o/r.git", "")
	applyDefs(t, dir, "project: demo\ntasks:\n  - name: repo-o-r\n    script: "+strconv.Quote(pull.Script)+"\n"+
		"    labels: {subscription/url: \"https://bot@example.com/o/r.git\"}\n"+
		"    env: {"+crontab.CredentialUserVariable+": bot, "+crontab.CredentialPasswordVariable+": {secret: GH_TOKEN}}\n"+
		"triggers:\n  - {name: repo-o-r, task: repo-o-r, cron: \"0 * * * *\", timezone: UTC}\n")
	if code, out, errOut := edit("repo-o-r", "--url", "https://git.example.org/o/r.git"); code != 0 ||
		!strings.Contains(out, "so they were removed from the task's env and it pulls without credentials") {
		t.Errorf("an edit to another host: exit %d %q %q; want it said that the credentials given from a secret were removed", code, out, errOut)
	}
	trail := strings.Join(auditTrail(t, dir), "\n")
	if strings.Count(trail, "subscription.updated") != 3 || strings.Contains(trail, "TOKEN") ||
		!strings.Contains(trail, "subscription.updated "+osUser(t)+" repo-owner-scripts-main jd https://github.com/Owner/Scripts.git, branch main, cron 30 */4 * * * Asia/Shanghai, disabled") ||
		!strings.Contains(trail, "subscription.updated "+osUser(t)+" repo-o-r demo https://git.example.org/o/r.git, branch (the repository's default), cron 0 * * * * UTC, the credential variables given from a secret removed (set for another host)") {
		t.Errorf("audit trail:\n%s\nwant the three edits, by name and URL without the token", trail)
	}
}

// The subscriptions commands' refusals name the command to run on the
// command line, as the binary is named: `add` of a name taken says to
// edit that one with `subscriptions edit NAME` or remove it, and `edit`
// or `rm` of a name there is none of, or `edit` of no name, says how to
// list them.
func TestTheSubscriptionsCommandsRefusalsNameTheCommandsToRun(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, "project: demo\n")
	add := []string{"subscriptions", "add", "https://github.com/Owner/Scripts.git", "--project", "jd", "--cron", "0 */6 * * *", "--tz", "UTC", "--data-dir", dir}
	if code, out, errOut := ql(t, add...); code != 0 {
		t.Fatalf("subscriptions add: exit %d %q %q", code, out, errOut)
	}
	edit := "`ql-edge subscriptions edit repo-owner-scripts --data-dir " + dir + "`"
	rm := "`ql-edge subscriptions rm repo-owner-scripts --data-dir " + dir + "`"
	list := "`ql-edge subscriptions list --data-dir " + dir + "`"
	for _, c := range []struct {
		args []string
		exit int
		says string
	}{
		{add, 4, "a subscription named repo-owner-scripts exists already (project jd), pulling into the same folder: change it with " + edit + ", or remove it first with " + rm},
		{[]string{"subscriptions", "edit", "repo-nope", "--cron", "0 * * * *", "--data-dir", dir}, 1, "there is no subscription named \"repo-nope\" (removed, or its task's subscription/url label removed): " + list + " lists them"},
		{[]string{"subscriptions", "rm", "repo-nope", "--data-dir", dir}, 1, "there is no subscription named \"repo-nope\" (removed, or its task's subscription/url label removed): " + list + " lists them"},
		{[]string{"subscriptions", "edit", "--cron", "0 * * * *", "--data-dir", dir}, 2, "subscriptions edit takes one subscription name, such as repo-owner-repo: `ql-edge subscriptions list` shows them"},
		{[]string{"subscriptions", "edit", "repo-owner-scripts", "--data-dir", dir}, 2, "none was given: give one or more of --url, --branch, --cron, --tz, --match, --exclude, --enabled, --disabled"},
	} {
		if code, _, errOut := ql(t, c.args...); code != c.exit || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: exit %d %q; want %d saying %q", c.args, code, errOut, c.exit, c.says)
		}
	}
}
