package singlecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `crontab scripts` prints a file of the tasks a subscription's scripts'
// headers give that applies whole; applied, the same folder read again
// applies as unchanged. A script without a cron is listed on standard
// error and the command exits 1 after printing the others; a regular
// expression that does not compile is a usage error, exit 2.
func TestTheScriptsTasksAreAppliedAndReadingThemAgainPublishesNothingNew(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	scripts := t.TempDir()
	writeFile(t, scripts, "jd_bean.js", "/*\ncron \"1 7-21/2 * * *\" jd_bean.js, tag=京东豆\n*/\nconst $ = new Env('京东豆签到');\n")
	writeFile(t, scripts, "jx_sign.py", "# cron: 0 0 * * *\nprint(1)\n")
	if err := os.MkdirAll(filepath.Join(scripts, "utils"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(scripts, "utils"), "jd_helper.js", "module.exports = {}\n")
	args := []string{"crontab", "scripts", scripts, "--project", "jd", "--tz", "Asia/Shanghai"}
	code, out, errOut := ql(t, append(args, "--match", "jd_|jx_", "--exclude", "utils")...)
	if code != 0 || errOut != "" || !strings.Contains(out, "    title: 京东豆签到\n    script: node jd_bean.js\n    workingDir: "+scripts+"\n") {
		t.Fatalf("scripts: %d %q\n%s", code, errOut, out)
	}
	file := writeFile(t, t.TempDir(), "jd.yaml", out)
	if code, applied, errOut := ql(t, "apply", "-f", file, "--data-dir", dir); code != 0 || !strings.Contains(applied, "task jd_bean: created with title") || !strings.Contains(applied, "trigger jx_sign: created") {
		t.Fatalf("apply: %d\n%s%s", code, applied, errOut)
	}
	_, again, _ := ql(t, append(args, "--match", "jd_|jx_", "--exclude", "utils")...)
	file = writeFile(t, t.TempDir(), "jd.yaml", again)
	if code, applied, errOut := ql(t, "apply", "--dry-run", "-f", file, "--data-dir", dir); code != 0 || again != out || !strings.Contains(applied, "unchanged") || strings.Contains(applied, "updated") {
		t.Fatalf("the same folder again: %d\n%s%s\nwant the same file, every object unchanged", code, applied, errOut)
	}
	code, _, errOut = ql(t, args...)
	if code != 1 || errOut != "utils/jd_helper.js: not converted: its header gives no cron (cron: EXPR, cron \"EXPR\", or EXPR before the script's name, as the panel reads them): write its task by hand\n"+
		"ql-edge: 1 script gave no task (above); the file printed holds the 2 that did\n" {
		t.Fatalf("scripts with a helper: %d %q; want exit 1 listing it", code, errOut)
	}
	if code, _, errOut := ql(t, append(args, "--match", "jd_(")...); code != 2 || !strings.Contains(errOut, `--match "jd_(" is no regular expression`) {
		t.Fatalf("a bad --match: %d %q; want exit 2 naming it", code, errOut)
	}
}

// A panel crontab's subscription converts to a pull task a dry run takes
// whole.
func TestAPanelSubscriptionConvertedIsAppliedByADryRun(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	tab := writeFile(t, t.TempDir(), "crontab.list", "0 0 * * * ID=2 ql repo https://github.com/owner/scripts.git \"jd_\" \"test\" \"utils\" \"main\"\n")
	code, out, errOut := ql(t, "crontab", "convert", tab, "--project", "jd", "--tz", "Asia/Shanghai")
	if code != 0 || !strings.Contains(errOut, `ql-edge crontab scripts "$QL_SCRIPTS_DIR"/owner_scripts_main --match jd_ --exclude test`) {
		t.Fatalf("convert: %d %q\n%s", code, errOut, out)
	}
	file := writeFile(t, t.TempDir(), "jd.yaml", out)
	if code, applied, errOut := ql(t, "apply", "--dry-run", "-f", file, "--data-dir", dir); code != 0 || !strings.Contains(applied, "valid (1 task, 1 trigger); dry run, nothing written") {
		t.Fatalf("dry run of the converted file: %d\n%s%s\nfile:\n%s", code, applied, errOut, out)
	}
}

// `crontab scripts` makes a task of a TypeScript script whose header
// gives a cron, as `crontab convert` writes the panel's task SCRIPT.ts:
// tsx SCRIPT.ts run in the script's folder, noted once on standard error
// in the same words of what to install, exiting 0 since no script was
// left out; the file applies whole.
func TestCrontabScriptsRunsATypeScriptScriptWithTsxAsCrontabConvertDoes(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	scripts := t.TempDir()
	writeFile(t, scripts, "jd_tool.ts", "// cron: 0 8 * * *\nconst $ = new Env('京东工具');\nexport {}\n")
	writeFile(t, scripts, "jd_other.ts", "// cron: 0 9 * * *\nexport {}\n")
	tab := writeFile(t, t.TempDir(), "crontab.list", "0 8 * * * task jd_tool.ts\n")
	code, scriptsOut, scriptsNote := ql(t, "crontab", "scripts", scripts, "--project", "jd", "--tz", "Asia/Shanghai")
	if code != 0 {
		t.Fatalf("scripts: %d %q\n%s", code, scriptsNote, scriptsOut)
	}
	code, convertOut, convertNote := ql(t, "crontab", "convert", tab, "--project", "jd", "--tz", "Asia/Shanghai", "--scripts-dir", scripts)
	if code != 0 {
		t.Fatalf("convert: %d %q\n%s", code, convertNote, convertOut)
	}
	for _, out := range []string{scriptsOut, convertOut} {
		if !strings.Contains(out, "script: tsx jd_tool.ts\n    workingDir: "+scripts+"\n") {
			t.Errorf("the file printed:\n%s\nwant jd_tool.ts run as tsx jd_tool.ts in %s", out, scripts)
		}
	}
	if !strings.Contains(scriptsOut, "script: tsx jd_other.ts\n") {
		t.Errorf("scripts printed:\n%s\nwant jd_other.ts run as tsx jd_other.ts too", scriptsOut)
	}
	const install = "install tsx on the host that runs the tasks (npm install -g tsx)"
	if strings.Count(scriptsNote, install) != 1 || !strings.HasPrefix(scriptsNote, "jd_other.ts: note: its task is written as tsx jd_other.ts") || strings.Contains(scriptsNote, "not converted") ||
		!strings.Contains(convertNote, install) {
		t.Errorf("the notes: scripts %q, convert %q; want each saying once %q and nothing left out", scriptsNote, convertNote, install)
	}
	file := writeFile(t, t.TempDir(), "jd.yaml", scriptsOut)
	if code, applied, errOut := ql(t, "apply", "--dry-run", "-f", file, "--data-dir", dir); code != 0 || !strings.Contains(applied, "valid (2 tasks, 2 triggers)") {
		t.Fatalf("apply --dry-run: %d\n%s%s", code, applied, errOut)
	}
}
