package crontab

import (
	"regexp"
	"strings"
	"testing"
)

const sample = `# m h dom mon dow command

SHELL=/bin/bash
MAILTO=ops@example.com
PATH=/usr/local/bin:/usr/bin:/bin
*/5 * * * * /usr/local/bin/backup.sh --quick
0 3 * * 7 /usr/local/bin/backup.sh --full
CRON_TZ=Asia/Shanghai
30 2 * * 1-7 python3 /opt/report.py
0 6 * * MON-SUN/2 /opt/Weekly Report.sh
@daily  cd /srv && ./rotate-logs
@reboot /usr/bin/start-thing
15 4 * * * echo "date is $(date +\%F)" >> /tmp/x
15 4 * * * mail -s hi root%body line%
0 0 */2 * 1 /opt/odd.sh
61 * * * * /bin/true
garbage
TZ=America/New_York
@hourly /usr/local/bin/backup.sh
SHELL=/bin/zsh
`

// Every line of a crontab is converted, taken as a setting of the lines
// after it, skipped as a comment or blank, or reported with its number and
// why: nothing is dropped silently. Entries get cron's meaning: macros,
// 7 (and ranges reaching it) for Sunday, the zone and settings of the
// lines before them, "\%" as "%"; names come from the command, unique and
// valid.
func TestEveryCrontabLineIsConvertedOrReportedWithItsNumber(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader(sample), Options{Zone: "Europe/Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Line: 6, Name: "backup", Cron: "*/5 * * * *", Timezone: "Europe/Berlin", Shell: "/bin/bash", Script: "/usr/local/bin/backup.sh --quick"},
		{Line: 7, Name: "backup-2", Cron: "0 3 * * 0", Timezone: "Europe/Berlin", Shell: "/bin/bash", Script: "/usr/local/bin/backup.sh --full"},
		{Line: 9, Name: "report", Cron: "30 2 * * 0,1,2,3,4,5,6", Timezone: "Asia/Shanghai", Shell: "/bin/bash", Script: "python3 /opt/report.py"},
		{Line: 10, Name: "weekly", Cron: "0 6 * * 0,1,3,5", Timezone: "Asia/Shanghai", Shell: "/bin/bash", Script: "/opt/Weekly Report.sh"},
		{Line: 11, Name: "rotate-logs", Cron: "0 0 * * *", Timezone: "Asia/Shanghai", Shell: "/bin/bash", Script: "cd /srv && ./rotate-logs"},
		{Line: 13, Name: "echo", Cron: "15 4 * * *", Timezone: "Asia/Shanghai", Shell: "/bin/bash", Script: `echo "date is $(date +%F)" >> /tmp/x`},
		{Line: 15, Name: "odd", Cron: "0 0 */2 * 1", Timezone: "Asia/Shanghai", Shell: "/bin/bash", Script: "/opt/odd.sh"},
		{Line: 19, Name: "backup-3", Cron: "0 * * * *", Timezone: "America/New_York", Shell: "/bin/bash", Script: "/usr/local/bin/backup.sh"},
	}
	if len(res.Entries) != len(want) {
		t.Fatalf("%d entries %+v, want %d", len(res.Entries), res.Entries, len(want))
	}
	name := regexp.MustCompile(`^[a-z0-9]([a-z0-9_.-]*[a-z0-9])?$`)
	for i, e := range res.Entries {
		w := want[i]
		if e.Line != w.Line || e.Name != w.Name || e.Cron != w.Cron || e.Timezone != w.Timezone || e.Shell != w.Shell || e.Script != w.Script {
			t.Errorf("entry %d: %+v, want %+v", i, e, w)
		}
		if !name.MatchString(e.Name) {
			t.Errorf("entry %d: name %q is no valid name", i, e.Name)
		}
		if e.Env["PATH"] != "/usr/local/bin:/usr/bin:/bin" || (e.Line == 19) != (e.Env["TZ"] == "America/New_York") {
			t.Errorf("entry %d: env %v, want the PATH set before it, and TZ only after TZ=", i, e.Env)
		}
	}
	reported := map[int]Kind{}
	for _, p := range res.Problems {
		reported[p.Line] = p.Kind
		if !strings.HasPrefix(p.String(), "line ") || p.Why == "" {
			t.Errorf("problem %+v says no line or no why: %s", p, p)
		}
	}
	wantReported := map[int]Kind{4: Noted, 12: NotConverted, 14: NotConverted, 15: ConvertedBut, 16: NotConverted, 17: NotConverted, 20: Noted}
	for line, kind := range wantReported {
		if reported[line] != kind {
			t.Errorf("line %d reported %q, want %q", line, reported[line], kind)
		}
	}
	// Every line is one of: blank or a comment, a setting, an entry, or
	// reported.
	entries := map[int]bool{}
	for _, e := range res.Entries {
		entries[e.Line] = true
	}
	for i, line := range strings.Split(strings.TrimSuffix(sample, "\n"), "\n") {
		n, text := i+1, strings.TrimSpace(line)
		if text == "" || strings.HasPrefix(text, "#") || isSetting(text) || entries[n] || reported[n] != "" {
			continue
		}
		t.Errorf("line %d (%q) was dropped silently", n, line)
	}
	for _, p := range res.Problems {
		switch p.Line {
		case 12:
			if !strings.Contains(p.Why, "no trigger that fires when the machine starts") {
				t.Errorf("@reboot: %s", p)
			}
		case 14:
			if !strings.Contains(p.Why, "standard input") || !strings.Contains(p.Why, `escape a literal "%" as "\%"`) {
				t.Errorf("%%: %s", p)
			}
		case 15:
			if !strings.Contains(p.Why, "cron fires it only on days matching both") {
				t.Errorf("*/2 with a weekday: %s", p)
			}
		case 16:
			if !strings.Contains(p.Why, `minute field "61"`) {
				t.Errorf("bad minute: %s", p)
			}
		}
	}
}

// A converted crontab is a definitions file of the project: the comment
// of what QingLong does otherwise than cron first, then one task and one
// trigger per entry, the default shell left out.
func TestAConvertedCrontabIsADefinitionsFileWithTheDifferencesFirst(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader("FOO=\"a b\"\n0 3 * * * /opt/x.sh '100%'\n0 4 * * * /opt/report.sh\n"), Options{Zone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 1 || len(res.Problems) != 1 || res.Problems[0].Line != 2 {
		t.Fatalf("entries %+v, problems %+v; want report converted and x's %% reported", res.Entries, res.Problems)
	}
	out, err := res.Definitions("ops", testServer)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{"timeout: a command is stopped after 1h", "misfire: fire_once", "workingDir", "--concurrency",
		"project: ops\n", "  - name: report\n    script: /opt/report.sh\n    env:\n      FOO: a b\n", "  - name: report\n    task: report\n    cron: 0 4 * * *\n    timezone: UTC\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("definitions:\n%s\nwant %q", text, want)
		}
	}
	if strings.Contains(text, "shell:") || !strings.HasPrefix(text, Header(testServer)) {
		t.Errorf("definitions:\n%s\nwant the header first and no shell", text)
	}
}

// testServer is the server a test's converted file is for.
var testServer = Server{Binary: "ql", Concurrency: DefaultConcurrency(0)}
