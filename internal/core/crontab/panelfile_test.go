package crontab

import (
	"slices"
	"strings"
	"testing"
)

// panelFile is a crontab.list as the qinglong panel writes it: its row id
// before every command, its six-field and disabled tasks as comments
// (its older files without the id), beside comments of cron's own.
const panelFile = `# 0 5 0 * * * ID=3 task jd_bean_sign.js
15 8,20 * * * ID=4 task jd_fruit.js
# 10 0 * * * task jd_old.js
33 8 * * * ID=1 ql repo https://example.com/owner/scripts.git "jd_" "" ""
## 京东签到
# m h  dom mon dow   command
# 0 5 * * 1 tar -zcf /var/backups/home.tgz /home/
# @reboot
`

// The panel's commented lines are its disabled tasks and those of six
// fields: each becomes a task and a disabled trigger, noted once, where
// cron's own comments (a heading, an example entry) stay comments.
func TestThePanelsCommentedTasksAreConvertedWithTheirTriggerDisabled(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader(panelFile), Options{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	disabled := map[int]bool{}
	for _, e := range res.Entries {
		disabled[e.Line] = e.Disabled
	}
	want := map[int]bool{1: true, 2: false, 3: true, 4: false}
	if len(disabled) != len(want) {
		t.Fatalf("entries %+v, want lines 1 to 4", res.Entries)
	}
	for line, d := range want {
		if got, ok := disabled[line]; !ok || got != d {
			t.Errorf("line %d: converted %v, disabled %v; want converted, disabled %v", line, ok, got, d)
		}
	}
	noted := 0
	for _, p := range res.Problems {
		if p.Code == CodeCommented {
			noted++
			if p.Line != 1 || p.Kind != Noted {
				t.Errorf("commented lines noted as %+v, want a note at line 1", p)
			}
		}
		if p.Line > 4 {
			t.Errorf("a comment of cron's own is reported: %+v", p)
		}
	}
	if noted != 1 {
		t.Errorf("commented lines noted %d times, want once: %+v", noted, res.Problems)
	}
	out, err := res.Definitions("jd", testServer)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"  - name: jd_bean_sign\n    task: jd_bean_sign\n    cron: 0 5 0 * * *\n    timezone: Asia/Shanghai\n    enabled: false\n",
		"  - name: jd_fruit\n    task: jd_fruit\n    cron: 15 8,20 * * *\n    timezone: Asia/Shanghai\n  - name"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("definitions:\n%s\nwant %q", out, w)
		}
	}
}

// The row id the panel writes before each command hides neither its task
// command nor its own ql commands: the task is named after its script and
// runs it without the id, reported as the panel's task command, and a
// subscription becomes its pull task.
func TestThePanelsRowIDHidesNeitherItsTaskNorItsQlCommands(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader(panelFile), Options{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[int]string{}
	for _, e := range res.Entries {
		scripts[e.Line] = e.Name + ": " + e.Script
	}
	if scripts[1] != "jd_bean_sign: task jd_bean_sign.js" || scripts[2] != "jd_fruit: task jd_fruit.js" {
		t.Errorf("entries %v, want the scripts without the panel's ID=", scripts)
	}
	codes := map[int][]Code{}
	for _, p := range res.Problems {
		codes[p.Line] = append(codes[p.Line], p.Code)
	}
	if !slices.Contains(codes[2], CodeTaskCommand) || !slices.Contains(codes[1], CodeTaskCommand) {
		t.Errorf("problems %v, want lines 1 and 2 reported as the panel's task command", codes)
	}
	if !slices.Contains(codes[4], CodePanelRepo) {
		t.Errorf("problems %v, want line 4 (ql repo) converted to its pull task", codes)
	}
}

// Given the folder its scripts are in, the panel's task SCRIPT runs the
// script with its interpreter there, noted once, its trailing now left
// out (a TypeScript one runs with tsx, noted apart); a script of another
// extension, or a desi or conc mode (once per account), stays as written
// and reported.
func TestThePanelsTaskCommandRunsItsScriptWithItsInterpreterInTheScriptsFolder(t *testing.T) {
	t.Parallel()
	const list = "5 0 * * * ID=6 task jd_joy.js now\n30 7 * * * task checkin.py\n0 9 * * 1 task weekly.sh first\n" +
		"0 1 * * * task jd_speed.js conc JD_COOKIE 1-3\n0 2 * * * task jd_tool.ts\n0 3 * * * /usr/local/bin/other.sh\n"
	res, err := Convert(strings.NewReader(list), Options{Zone: "Asia/Shanghai", ScriptsDir: "/srv/ql/scripts"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][2]string{1: {"node jd_joy.js", "/srv/ql/scripts"}, 2: {"python3 -u checkin.py", "/srv/ql/scripts"}, 3: {"bash weekly.sh first", "/srv/ql/scripts"},
		4: {"task jd_speed.js conc JD_COOKIE 1-3", ""}, 5: {"tsx jd_tool.ts", "/srv/ql/scripts"}, 6: {"/usr/local/bin/other.sh", ""}}
	for _, e := range res.Entries {
		if got := [2]string{e.Script, e.WorkingDir}; got != want[e.Line] {
			t.Errorf("line %d: script and workingDir %q, want %q", e.Line, got, want[e.Line])
		}
	}
	codes := map[int][]Code{}
	for _, p := range res.Problems {
		codes[p.Line] = append(codes[p.Line], p.Code)
	}
	wantCodes := map[int][]Code{1: {CodeTaskInterpreter}, 4: {CodeTaskCommand}, 5: {CodeTaskTypeScript}}
	for line := 1; line <= 6; line++ {
		if !slices.Equal(codes[line], wantCodes[line]) {
			t.Errorf("line %d reported %v, want %v", line, codes[line], wantCodes[line])
		}
	}
	out, err := res.Definitions("jd", testServer)
	if err != nil {
		t.Fatal(err)
	}
	if w := "  - name: jd_joy\n    script: node jd_joy.js\n    workingDir: /srv/ql/scripts\n"; !strings.Contains(string(out), w) {
		t.Errorf("definitions:\n%s\nwant %q", out, w)
	}
}

// Each of the panel's own ql commands gets what stands in for it here: a
// pull task (repo, raw, converted and noted), retention deleting logs
// (rmlog) and nothing for the panel's upkeep (update), neither converted.
func TestThePanelsOwnCommandsSayWhatStandsInForThemHere(t *testing.T) {
	t.Parallel()
	const list = "33 8 * * * ID=1 ql repo https://example.com/owner/s.git\n0 */6 * * * ql raw https://example.com/a.js\n" +
		"57 13 * * * ID=11 ql rmlog 7\n15 0,12 * * * ID=10 ql update\n"
	res, err := Convert(strings.NewReader(list), Options{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{1: "becomes a task pulling", 2: "becomes a task downloading", 3: "--retention-logs", 4: "replacing its binary"}
	if len(res.Entries) != 2 || len(res.Problems) != len(want) {
		t.Fatalf("entries %+v, problems %+v; want lines 1 and 2 converted, every line reported", res.Entries, res.Problems)
	}
	for _, p := range res.Problems {
		if kind := map[bool]Kind{true: Noted, false: NotConverted}[p.Line <= 2]; p.Kind != kind || !strings.Contains(p.Why, want[p.Line]) {
			t.Errorf("line %d: %s; want it %s, saying %q", p.Line, p, kind, want[p.Line])
		}
		if p.Line > 2 && strings.Contains(p.Why, "pull") {
			t.Errorf("line %d is told to pull scripts: %s", p.Line, p)
		}
	}
}

// A panel's task of a script whose name starts with '-', as a crontab
// line or a panel's row, runs ./NAME: its interpreter never reads the
// name as an option.
func TestAPanelTaskOfAScriptNamedLikeAnOptionIsNotGivenAsOne(t *testing.T) {
	t.Parallel()
	o := Options{Zone: "Asia/Shanghai", ScriptsDir: "/srv/ql/scripts"}
	lines, err := Convert(strings.NewReader("5 0 * * * task -x.js now\n"), o)
	if err != nil {
		t.Fatal(err)
	}
	rows := ConvertRows([]Row{{ID: 1, Name: "破折号", Schedule: "5 0 * * *", Command: "task --help.py"}}, o)
	for _, c := range []struct {
		what string
		res  Result
		want string
	}{{"a crontab line", lines, "node ./-x.js"}, {"a panel row", rows, "python3 -u ./--help.py"}} {
		if len(c.res.Entries) != 1 || c.res.Entries[0].Script != c.want {
			t.Errorf("%s: %+v, want the script %q", c.what, c.res.Entries, c.want)
		}
	}
}
