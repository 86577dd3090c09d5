package crontab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// subscriptions are the qinglong panel's ql repo and ql raw lines as its
// crontab.list holds them.
const subscriptions = `0 0 * * * ID=2 ql repo https://github.com/Owner/Scripts.git "jd_|jx_" "backup|test" "^jd[^_]|USER|utils" "main"
30 1 * * * ql repo git@gitee.com:someone/tools.git
0 */6 * * * ql raw https://raw.example.com/someone/repo/main/jd_x.js
`

// The panel's ql repo line becomes a task and a trigger of the same
// schedule, named after the repository and titled with it, pulling it
// into the folder the panel names OWNER_REPO (_BRANCH when a branch is
// named) under $QL_SCRIPTS_DIR; it is noted, not refused, with the
// command turning its whitelisted scripts into tasks and what a cluster
// worker needs. ql raw likewise becomes a download.
func TestTheQinglongPanelsSubscriptionBecomesATaskPullingItsRepositoryIntoThePanelsFolder(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader(subscriptions), Options{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 3 {
		t.Fatalf("entries %+v, problems %+v; want the three lines converted", res.Entries, res.Problems)
	}
	want := []struct{ name, title, cron, in string }{
		{"repo-owner-scripts-main", "Owner/Scripts (main)", "0 0 * * *", `git clone --depth 1 --branch main -- https://github.com/Owner/Scripts.git "$QL_SCRIPTS_DIR"/Owner_Scripts_main`},
		{"repo-someone-tools", "someone/tools", "30 1 * * *", `git -C "$QL_SCRIPTS_DIR"/someone_tools fetch --depth 1 -- git@gitee.com:someone/tools.git HEAD`},
		{"raw-jd_x", "raw_jd_x.js", "0 */6 * * *", `curl -fsSL -o "$QL_SCRIPTS_DIR"/raw_jd_x.js.new https://raw.example.com/someone/repo/main/jd_x.js`},
	}
	for i, w := range want {
		e := res.Entries[i]
		if e.Name != w.name || e.Title != w.title || e.Cron != w.cron || !strings.Contains(e.Script, w.in) {
			t.Errorf("line %d: %q %q %q\n%s\nwant %q %q %q and %q", e.Line, e.Name, e.Title, e.Cron, e.Script, w.name, w.title, w.cron, w.in)
		}
	}
	notes := map[int]Problem{}
	for _, p := range res.Problems {
		notes[p.Line] = p
	}
	if p := notes[1]; p.Kind != Noted || p.Code != CodePanelRepo ||
		!strings.Contains(p.Why, `ql crontab scripts "$QL_SCRIPTS_DIR"/Owner_Scripts_main --match 'jd_|jx_' --exclude 'backup|test'`) ||
		!strings.Contains(p.Why, "a cluster worker set it (their --scripts-dir)") || !strings.Contains(p.Why, "each worker keeps its own copy: pin the task with placement.labels") ||
		!strings.Contains(p.Why, "^jd[^_]|USER|utils") {
		t.Errorf("line 1: %s; want a note naming the scripts command with the whitelist and blacklist, the worker's --scripts-dir, its own copy and the dependence files", p)
	}
	if p := notes[3]; p.Kind != Noted || p.Code != CodePanelRaw || !strings.Contains(p.Why, `--match '^raw_jd_x\.js$'`) {
		t.Errorf("line 3: %s; want a note naming the scripts command for the file", p)
	}
	out, err := res.Definitions("jd", testServer)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "  - name: repo-someone-tools\n    title: someone/tools\n    script: |\n      set -eu\n") {
		t.Errorf("definitions:\n%s\nwant the pull task titled, its script a block", out)
	}
}

// A ql repo or ql raw line naming nothing to pull stays not converted,
// saying what to write.
func TestAPanelPullNamingNoURLIsNotConverted(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader("0 0 * * * ql repo\n0 0 * * * ql raw https://example.com/\n0 0 * * * ql repo 'https://x/a/b.git\n"), Options{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 0 || len(res.Problems) != 3 {
		t.Fatalf("entries %+v problems %+v; want three lines not converted", res.Entries, res.Problems)
	}
	for _, p := range res.Problems {
		if p.Kind != NotConverted || p.Code != CodePanelCommand {
			t.Errorf("%s; want not converted, naming nothing to pull", p)
		}
	}
}

// pullTask is the script line 1 of subscriptions converts to, for url.
func pullTask(t *testing.T, url string) string {
	t.Helper()
	res, err := Convert(strings.NewReader("0 0 * * * ql repo "+url+` "jd_" "" "" "main"`+"\n"), Options{Zone: "Asia/Shanghai"})
	if err != nil || len(res.Entries) != 1 {
		t.Fatalf("convert: %v %+v", err, res)
	}
	return res.Entries[0].Script
}

// git runs git in dir, failing t on an error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// bareRepo makes the bare repository bare (its folders too) that a pull
// fetches from, which git http-backend may serve but no push over HTTP
// changes, and work, a clone of it the test commits in and pushes from.
func bareRepo(t *testing.T, bare, work string) {
	t.Helper()
	needGit(t)
	if err := os.MkdirAll(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, bare, "init", "--bare", "-q")
	git(t, bare, "config", "http.receivepack", "false")
	git(t, filepath.Dir(work), "clone", "-q", bare, work)
}

// needGit skips t where git is absent, but for in CI, where it must be.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git is needed: %v", err)
		}
		t.Skipf("git is absent: %v", err)
	}
}

// runPull runs the pull task's script with sh as a Run would, with
// QL_SCRIPTS_DIR set to scripts.
func runPull(t *testing.T, script, scripts string) (string, error) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "QL_SCRIPTS_DIR="+scripts)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The pull task's command, run by sh against a real repository, clones it
// into the panel's folder on its first Run and brings it to the branch's
// head on each later one, a force-pushed history included.
func TestThePullTaskClonesTheRepositoryThenUpdatesItToTheBranchsHead(t *testing.T) {
	t.Parallel()
	needGit(t)
	root := t.TempDir()
	bare, work, scripts := filepath.Join(root, "Owner", "Scripts.git"), filepath.Join(root, "work"), filepath.Join(root, "scripts dir")
	bareRepo(t, bare, work)
	commit := func(content string, amend bool) {
		if err := os.WriteFile(filepath.Join(work, "jd_a.js"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, work, "add", "jd_a.js")
		args := []string{"commit", "-q", "-m", content}
		if amend {
			args = append(args, "--amend")
		}
		git(t, work, args...)
		git(t, work, "push", "-q", "--force", "origin", "HEAD:main")
	}
	script := pullTask(t, "file://"+bare)
	clone := filepath.Join(scripts, "Owner_Scripts_main", "jd_a.js")
	for i, step := range []struct {
		content string
		amend   bool
	}{{"// first\n", false}, {"// second\n", false}, {"// rewritten\n", true}} {
		commit(step.content, step.amend)
		if out, err := runPull(t, script, scripts); err != nil {
			t.Fatalf("pull %d: %v\n%s", i+1, err, out)
		}
		got, err := os.ReadFile(clone)
		if err != nil || string(got) != step.content {
			t.Fatalf("after pull %d the clone's jd_a.js is %q (%v); want %q", i+1, got, err, step.content)
		}
	}
}

// The pull task fails, naming the variable, when QL_SCRIPTS_DIR is empty,
// as under a server or worker older than the scripts folder, rather than pull into the Run's working
// directory, removed after it.
func TestThePullTaskFailsClearlyWhenTheScriptsFolderIsUnset(t *testing.T) {
	t.Parallel()
	out, err := runPull(t, pullTask(t, "https://example.com/o/r.git"), "")
	if err == nil || !strings.Contains(out, "QL_SCRIPTS_DIR") || !strings.Contains(out, "no scripts folder: upgrade it") {
		t.Fatalf("run with QL_SCRIPTS_DIR empty: %v\n%s\nwant a failure saying to upgrade what runs it", err, out)
	}
}

// The panel's arguments are read as its shell reads them: quoted words
// whole, an empty quoted word an empty argument keeping the later ones in
// place.
func TestThePanelsRepoArgumentsAreReadAsItsShellReadsThem(t *testing.T) {
	t.Parallel()
	words, ok := shellWords(`ql repo https://x/o/r.git "jd_|jx_" '' "a\"b" c\ d "main"`)
	want := []string{"ql", "repo", "https://x/o/r.git", "jd_|jx_", "", `a"b`, "c d", "main"}
	if !ok || strings.Join(words, "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("words %q (%v), want %q", words, ok, want)
	}
}

// A second ql repo line pulling into the folder an earlier line's task
// pulls into (the same repository and branch) is left out, reported as
// repeating that line, rather than becoming a second task whose pulls
// undo the first's.
func TestAQlRepoRepeatingAnEarlierLinesFolderIsReportedNotASecondTask(t *testing.T) {
	t.Parallel()
	lines := "0 0 * * * ql repo https://github.com/Owner/Scripts.git \"jd_\" \"\" \"\" main\n" +
		"0 6 * * * ql repo https://github.com/Owner/Scripts.git \"jx_\" \"\" \"\" main\n" +
		"0 7 * * * ql repo https://github.com/Owner/Scripts.git \"jx_\" \"\" \"\" dev\n"
	res, err := Convert(strings.NewReader(lines), Options{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 2 || res.Entries[0].Name != "repo-owner-scripts-main" || res.Entries[1].Name != "repo-owner-scripts-dev" {
		t.Fatalf("entries %+v; want lines 1 and 3 converted, line 2 left out", res.Entries)
	}
	var repeated []Problem
	for _, p := range res.Problems {
		if p.Code == CodeRepoRepeated {
			repeated = append(repeated, p)
		}
	}
	if len(repeated) != 1 || repeated[0].Line != 2 || repeated[0].Kind != NotConverted || repeated[0].Params["line"] != "1" ||
		repeated[0].Params["name"] != "repo-owner-scripts-main" || !strings.Contains(repeated[0].Why, "line 1's task repo-owner-scripts-main pulls into Owner_Scripts_main already") {
		t.Fatalf("%+v; want line 2 reported as repeating line 1's folder and left out", repeated)
	}
}

// A ql repo of a URL naming no owner (https://host/repo) is not converted,
// rather than read with the host as the owner.
func TestAQlRepoOfAURLWithoutAnOwnerIsNotConverted(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader("0 0 * * * ql repo https://git.example.com/scripts.git\n0 0 * * * ql repo git@host:scripts.git\n"), Options{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 0 || len(res.Problems) != 2 {
		t.Fatalf("entries %+v problems %+v; want both lines not converted", res.Entries, res.Problems)
	}
	for _, p := range res.Problems {
		if p.Kind != NotConverted || p.Code != CodeRepoURL || !strings.Contains(p.Why, "names no owner and repository") {
			t.Errorf("%s; want not converted as naming no owner and repository", p)
		}
	}
}

// A ql repo line whose branch git would refuse — one read as an option,
// or leading out of the scripts folder — is not converted, in the words
// the Subscriptions form refuses it with.
func TestAQlRepoOfABranchGitRefusesIsNotConverted(t *testing.T) {
	t.Parallel()
	for _, branch := range []string{"/../../x", "--upload-pack=touch${IFS}/tmp/ran", "a/../../b", "main branch"} {
		res, err := Convert(strings.NewReader("0 0 * * * ql repo https://example.com/owner/scripts.git \"\" \"\" \"\" '"+branch+"'\n"), Options{Zone: "UTC"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Entries) != 0 || len(res.Problems) != 1 {
			t.Fatalf("branch %q: entries %+v problems %+v; want the line not converted", branch, res.Entries, res.Problems)
		}
		p := res.Problems[0]
		if p.Kind != NotConverted || p.Code != CodeRepoBranch || p.Why != BranchFault(branch) {
			t.Errorf("branch %q: %s; want not converted as %s", branch, p, CodeRepoBranch)
		}
	}
}

// A pull task, run against a real repository, reads neither the URL nor
// the branch as a git option even were a branch past the converter's and
// the form's check: a branch written --upload-pack=COMMAND runs no
// command.
func TestAPullTaskReadsNeitherItsURLNorItsBranchAsAGitOption(t *testing.T) {
	t.Parallel()
	needGit(t)
	root := t.TempDir()
	bare, work, scripts := filepath.Join(root, "owner", "repo.git"), filepath.Join(root, "work"), filepath.Join(root, "scripts")
	bareRepo(t, bare, work)
	git(t, work, "commit", "-q", "--allow-empty", "-m", "first")
	git(t, work, "push", "-q", "origin", "HEAD:main")
	marker := filepath.Join(root, "ran")
	branch := "--upload-pack=touch${IFS}" + marker + ";git-upload-pack"
	sub := subscription{URL: "file://" + bare, Owner: "owner", Repo: "repo", Branch: branch, Folder: "owner_repo_" + branch}
	// A clone already there: the pull fetches into it.
	folder := filepath.Join(scripts, "owner_repo_"+branch)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, root, "clone", "-q", bare, folder)
	out, _ := runPull(t, sub.pullScript(), scripts)
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the pull ran the command its branch named as git's --upload-pack:\n%s", out)
	}
}
