package cli

import "testing"

// `ql crontab convert` reads /etc/crontab and the files in /etc/cron.d as
// system crontabs (a user column) without --system, and any other path as
// a user crontab: the places cron itself reads system crontabs from.
func TestTheCrontabsCronReadsAsSystemOnesAreConvertedAsSystemCrontabs(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"/etc/crontab": true, "/etc/cron.d/backup": true, "/etc/cron.d/../cron.d/php": true, "/etc//crontab": true,
		"crontab": false, "-": false, "/etc/cron.daily/logrotate": false, "/var/spool/cron/crontabs/ops": false, "/home/ops/etc/crontab": false,
	} {
		if got := systemCrontab(path); got != want {
			t.Errorf("%s read as a system crontab: %v, want %v", path, got, want)
		}
	}
}
