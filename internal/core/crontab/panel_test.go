package crontab

import (
	"strings"
	"testing"
)

// panelList is a crontab as the qinglong panel keeps its tasks: six time
// fields (seconds first) beside five, its task command and its own ql
// commands.
const panelList = `0 5 0 * * * task jd_bean_sign.js
*/30 * * * * node /ql/scripts/check.js
0 0 12 * * MON-FRI python3 /ql/scripts/weekday.py
15 3 * * * task /ql/scripts/fruit.py now
33 8 * * * ql repo https://example.com/owner/scripts.git "jd_" "" ""
0 0 3 * * 7 /ql/scripts/backup.sh
`

// A crontab line of six time fields is read with seconds first, as the
// qinglong panel writes them, and a line of five beside it as five; a
// sixth word that is a command is never taken for a field.
func TestACrontabLineOfSixTimeFieldsIsReadWithSecondsFirst(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader(panelList), Options{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{1: "0 5 0 * * *", 2: "*/30 * * * *", 3: "0 0 12 * * MON-FRI", 4: "15 3 * * *", 5: "33 8 * * *", 6: "0 0 3 * * 0"}
	scripts := map[int]string{1: "task jd_bean_sign.js", 2: "node /ql/scripts/check.js", 6: "/ql/scripts/backup.sh"}
	if len(res.Entries) != len(want) {
		t.Fatalf("%d entries %+v, want %d", len(res.Entries), res.Entries, len(want))
	}
	for _, e := range res.Entries {
		if e.Cron != want[e.Line] {
			t.Errorf("line %d: cron %q, want %q", e.Line, e.Cron, want[e.Line])
		}
		if s, ok := scripts[e.Line]; ok && e.Script != s {
			t.Errorf("line %d: script %q, want %q", e.Line, e.Script, s)
		}
	}
	noted := 0
	for _, p := range res.Problems {
		if p.Kind == Noted && strings.Contains(p.Why, "six time fields are read as seconds") {
			noted++
			if p.Line != 1 {
				t.Errorf("the seconds field is noted at line %d, want the first line of six: %s", p.Line, p)
			}
		}
	}
	if noted != 1 {
		t.Errorf("the seconds field is noted %d times, want once: %+v", noted, res.Problems)
	}
}

// An entry running the qinglong panel's task command is named after its
// script and reported as converted but failing here (no such command),
// saying what to write instead; the panel's subscription (ql repo)
// becomes its pull task, noted.
func TestTheQinglongPanelsCommandsAreNamedAfterTheirScriptAndReported(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader(panelList), Options{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	names := map[int]string{}
	for _, e := range res.Entries {
		names[e.Line] = e.Name
	}
	if names[1] != "jd_bean_sign" || names[4] != "fruit" || names[2] != "check" {
		t.Errorf("names %v, want jd_bean_sign, check and fruit, after the scripts", names)
	}
	reported := map[int]Problem{}
	for _, p := range res.Problems {
		if p.Kind != Noted || p.Code == CodePanelRepo {
			reported[p.Line] = p
		}
	}
	for _, line := range []int{1, 4} {
		p := reported[line]
		if p.Kind != ConvertedBut || !strings.Contains(p.Why, `"task: not found"`) || !strings.Contains(p.Why, "node /ql/scripts/") {
			t.Errorf("line %d: %+v, want it converted but reported: no task command here, and what to write", line, p)
		}
	}
	if p := reported[5]; p.Kind != Noted || p.Code != CodePanelRepo || names[5] != "repo-owner-scripts" {
		t.Errorf("line 5: %+v, named %q; want ql repo converted to repo-owner-scripts, noted", p, names[5])
	}
	if _, ok := reported[2]; ok {
		t.Errorf("line 2 reported: %+v", reported[2])
	}
}

// The notes of a conversion for the edge binary, which serves no
// cluster, name no cluster or worker; and a panel's rows are called rows
// in them, a crontab's lines lines.
func TestTheNotesNameNoClusterOnEdgeAndCallAPanelsRowsRows(t *testing.T) {
	t.Parallel()
	const list = "0 5 0 * * * task jd_bean_sign.js\n33 8 * * * ql repo https://example.com/o/s.git\n0 1 * * * ql repo https://example.com/o/s.git\n" +
		"0 */6 * * * ql raw https://example.com/a.js\n"
	var rows []Row
	for i, line := range strings.Split(strings.TrimSpace(list), "\n") {
		f := strings.Fields(line)
		rows = append(rows, Row{ID: i + 1, Name: "任务", Schedule: strings.Join(f[:len(f)-2], " "), Command: strings.Join(f[len(f)-2:], " ")})
	}
	for _, edge := range []bool{false, true} {
		o := Options{Zone: "Asia/Shanghai", ScriptsDir: "/srv/ql/scripts", Edge: edge}
		lines, err := Convert(strings.NewReader(list), o)
		if err != nil {
			t.Fatal(err)
		}
		for unit, res := range map[string]Result{"line": lines, "row": ConvertRows(rows, o)} {
			other := map[string]string{"line": "row", "row": "line"}[unit]
			cluster := false
			for _, p := range res.Problems {
				cluster = cluster || strings.Contains(p.Why, "cluster")
				if edge && (strings.Contains(p.Why, "cluster") || strings.Contains(p.Why, "worker")) {
					t.Errorf("%s %d (%s) on edge names a cluster or worker: %s", unit, p.Line, p.Code, p.Why)
				}
				if (p.Code == CodeSeconds || p.Code == CodeTaskInterpreter || p.Code == CodeRepoRepeated) && (!strings.Contains(p.Why, unit) || strings.Contains(p.Why, " "+other)) {
					t.Errorf("%s %d (%s) does not call it a %s: %s", unit, p.Line, p.Code, unit, p.Why)
				}
			}
			if !edge && !cluster {
				t.Errorf("the %ss' notes off edge say nothing of a cluster: the test misses them", unit)
			}
		}
	}
}
