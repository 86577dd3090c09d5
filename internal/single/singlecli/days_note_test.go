package singlecli

import (
	"strings"
	"testing"
)

const daysFile = `project: demo
tasks:
  - name: t1
    script: echo
triggers:
  - {name: either, task: t1, cron: "0 0 1,15 * MON", timezone: UTC}
  - {name: vixie, task: t1, cron: "0 0 */2 * 1", timezone: UTC}
  - {name: plain, task: t1, cron: "0 0 */2 * *", timezone: UTC}
`

// `ql apply`, its dry run and `ql cron next` say, for an expression that
// restricts both day fields, that it fires on days matching either, and
// where a field starts with "*", that Vixie cron would have required both
// and that no expression does here; an expression restricting one day
// field gets no such note.
func TestAnExpressionRestrictingBothDayFieldsIsNotedAsFiringOnEither(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	file := writeFile(t, t.TempDir(), "days.yaml", daysFile)
	vixie := `note: these triggers restrict both day-of-month and day-of-week, so they fire on days matching EITHER; Vixie cron (crontab) reads a day field starting with "*" (such as "*/2") as unrestricted and would fire them only on days matching BOTH. No expression here requires both`
	either := `note: these triggers restrict both day-of-month and day-of-week, so they fire on days matching EITHER (as Kubernetes CronJobs do)`
	for _, args := range [][]string{{"apply", "--dry-run", "-f", file, "--data-dir", dir}, {"apply", "-f", file, "--data-dir", dir}} {
		code, _, errOut := ql(t, args...)
		if code != 0 || !strings.Contains(errOut, vixie) || !strings.Contains(errOut, `(triggers: vixie (day-of-month "*/2" or day-of-week "1"))`) ||
			!strings.Contains(errOut, either) || !strings.Contains(errOut, `(triggers: either (day-of-month "1,15" or day-of-week "MON"))`) || strings.Contains(errOut, "plain") {
			t.Errorf("%v: %d\n%s\nwant the Vixie note naming vixie, the either note naming either, and nothing of plain", args, code, errOut)
		}
	}
	code, out, errOut := ql(t, "cron", "next", "0 0 */2 * 1", "--tz", "UTC", "-n", "1", "--after", "2026-12-13T00:00:00Z")
	if code != 0 || out != "2026-12-14 00:00:00 UTC +00:00  2026-12-14T00:00:00Z\n" ||
		errOut != `ql-edge: note: day-of-month "*/2" and day-of-week "1" both restrict the day, so it fires on days matching EITHER (as Kubernetes CronJobs do); `+
			`Vixie cron (crontab) reads a day field starting with "*" as unrestricted and would fire only on days matching BOTH. No expression here requires both: `+
			`keep one day field in the expression, write "*" for the other, and let the command check that day itself and exit when it does not match`+"\n" {
		t.Errorf("cron next: %d %q\nstderr %q", code, out, errOut)
	}
	if code, _, errOut := ql(t, "cron", "next", "0 0 */2 * *", "--tz", "UTC", "-n", "1"); code != 0 || errOut != "" {
		t.Errorf("cron next of one restricted day field: %d, stderr %q; want no note", code, errOut)
	}
}
