package crontab

import (
	"strings"
	"testing"
)

// A panel's row is converted as its crontab line is (seconds first, task
// SCRIPT with its interpreter, ql rmlog reported), but its command is
// taken as written: a "%" is a "%", as the panel runs it itself, where
// cron would have read standard input after it. Its name is its title,
// a name of two lines made one; a disabled row's trigger is disabled.
func TestAPanelRowsCommandIsTakenAsWrittenAndItsNameAsTitle(t *testing.T) {
	t.Parallel()
	rows := []Row{
		{ID: 1, Name: "每日报告", Schedule: "0 0 9 * * *", Command: "python3 report.py --date $(date +%F)"},
		{ID: 2, Name: "东东\n农场", Schedule: "15 8 * * *", Command: "task jd_fruit.js now", Disabled: true},
		{ID: 3, Name: "删除日志", Schedule: "30 7 * * *", Command: "ql rmlog 7"},
	}
	res := ConvertRows(rows, Options{Zone: "Asia/Shanghai", ScriptsDir: "/srv/ql/scripts"})
	if len(res.Entries) != 2 {
		t.Fatalf("%d entries %+v, want 2", len(res.Entries), res.Entries)
	}
	report, fruit := res.Entries[0], res.Entries[1]
	if report.Script != "python3 report.py --date $(date +%F)" || report.Title != "每日报告" || report.Cron != "0 0 9 * * *" || report.Disabled {
		t.Errorf("the report row: %+v", report)
	}
	if fruit.Script != "node jd_fruit.js" || fruit.WorkingDir != "/srv/ql/scripts" || fruit.Title != "东东 农场" || !fruit.Disabled {
		t.Errorf("the disabled task row: %+v", fruit)
	}
	var refused []int
	for _, p := range res.Problems {
		if p.Kind == NotConverted {
			refused = append(refused, p.Line)
		}
		if p.Code == CodeCommented {
			t.Errorf("a disabled row is noted as a commented crontab line: %s", p.Why)
		}
	}
	if len(refused) != 1 || refused[0] != 3 {
		t.Errorf("rows not converted: %v, want row 3 (ql rmlog)", refused)
	}
	line, err := Convert(strings.NewReader("0 9 * * * python3 report.py --date $(date +%F)\n"), Options{Zone: "UTC"})
	if err != nil || len(line.Entries) != 0 {
		t.Errorf("cron's line with an unescaped %%: %+v %v; want it refused, as cron reads standard input after it", line.Entries, err)
	}
}
