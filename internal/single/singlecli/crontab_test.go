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
