package singlecli

import (
	"strings"
	"testing"
)

// `ql crontab convert` prints a definitions file `ql apply --dry-run`
// takes whole (one task and one trigger per converted entry), reports on
// standard error each line it did not convert with its number, and then
// exits 1; a crontab it converts whole exits 0.
func TestACrontabConvertedIsAppliedByADryRun(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	tab := writeFile(t, t.TempDir(), "crontab", "# jobs\nSHELL=/bin/bash\nPATH=/usr/bin:/bin\n*/5 * * * * /usr/local/bin/backup.sh --quick\n"+
		"0 3 * * 7 /usr/local/bin/backup.sh --full\n@daily cd /srv && ./rotate-logs\n@reboot /usr/bin/start-thing\n"+
		"CRON_TZ=Asia/Shanghai\n30 2 * * 1-5 python3 /opt/report.py\n")
	code, out, errOut := ql(t, "crontab", "convert", tab, "--project", "ops", "--tz", "Europe/Berlin")
	if code != 1 || errOut != "line 7: not converted: QingLong has no trigger that fires when the machine starts; start the command from the host's start-up (a systemd unit) instead (@reboot /usr/bin/start-thing)\n"+
		"ql-edge: 1 line of the crontab was not converted (above); the file printed holds the 4 converted\n" {
		t.Fatalf("convert: %d\nstderr %q", code, errOut)
	}
	file := writeFile(t, t.TempDir(), "ops.yaml", out)
	code, applied, errOut := ql(t, "apply", "--dry-run", "-f", file, "--data-dir", dir)
	if code != 0 || !strings.Contains(applied, "valid (4 tasks, 4 triggers); dry run, nothing written") {
		t.Fatalf("dry run of the converted file: %d\n%s%s\nfile:\n%s", code, applied, errOut, out)
	}
	whole := writeFile(t, t.TempDir(), "crontab", "0 3 * * * /opt/a.sh\n")
	if code, out, errOut := ql(t, "crontab", "convert", whole, "--project", "ops", "--tz", "UTC"); code != 0 || errOut != "" || !strings.Contains(out, "cron: 0 3 * * *") {
		t.Fatalf("convert of a whole crontab: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := ql(t, "crontab", "convert", whole, "--project", "ops"); code != 2 || !strings.Contains(errOut, "--tz is required") {
		t.Fatalf("convert without a zone: %d %q; want a usage error naming --tz", code, errOut)
	}
}

// The qinglong panel's crontab.list converted with --scripts-dir is a file
// a dry run takes whole, each task SCRIPT run with its interpreter in that
// folder and each commented task's trigger disabled; a folder that is no
// absolute path is refused, exit 2, saying what to give.
func TestAPanelCrontabConvertedWithItsScriptsFolderIsAppliedByADryRun(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	tab := writeFile(t, t.TempDir(), "crontab.list", "# 0 5 0 * * * ID=3 task jd_bean_sign.js\n15 8,20 * * * ID=4 task jd_fruit.js now\n30 7 * * * ID=8 task checkin.py\n")
	code, out, errOut := ql(t, "crontab", "convert", tab, "--project", "jd", "--tz", "Asia/Shanghai", "--scripts-dir", "/srv/ql/scripts")
	if code != 0 || !strings.Contains(out, "    script: node jd_fruit.js\n    workingDir: /srv/ql/scripts\n") || !strings.Contains(out, "    enabled: false\n") {
		t.Fatalf("convert: %d\nstderr %q\n%s", code, errOut, out)
	}
	file := writeFile(t, t.TempDir(), "jd.yaml", out)
	if code, applied, errOut := ql(t, "apply", "--dry-run", "-f", file, "--data-dir", dir); code != 0 || !strings.Contains(applied, "valid (3 tasks, 3 triggers); dry run, nothing written") {
		t.Fatalf("dry run of the converted file: %d\n%s%s\nfile:\n%s", code, applied, errOut, out)
	}
	if code, _, errOut := ql(t, "crontab", "convert", tab, "--project", "jd", "--tz", "Asia/Shanghai", "--scripts-dir", "scripts"); code != 2 || !strings.Contains(errOut, `--scripts-dir "scripts" must be an absolute, clean path`) {
		t.Fatalf("convert with a relative scripts folder: %d %q; want exit 2 saying the folder must be absolute", code, errOut)
	}
}
