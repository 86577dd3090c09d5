package apply

import (
	"strings"
	"testing"
)

// panelFile is a definitions file as a user of the qinglong panel writes
// it first: the panel's task command, Python buffered and unbuffered, and
// programs named task that are not the panel's.
const panelFile = `project: jd
tasks:
  - {name: bean, script: task jd_bean_sign.js}
  - {name: fruit, script: "cd /ql/scripts && task jd_fruit.py now"}
  - {name: check, script: python3 /ql/scripts/check.py}
  - {name: argv, command: [/usr/bin/python3, /ql/scripts/a.py]}
  - {name: quick, script: "python3 -u /ql/scripts/q.py"}
  - {name: combined, script: "/usr/bin/python3 -Bu q.py"}
  - {name: envset, script: python3 x.py, env: {PYTHONUNBUFFERED: "1"}}
  - {name: gotask, script: task build}
  - {name: taskwarrior, script: task list}
triggers:
  - {name: bean, task: bean, cron: "0 5 0 * * *", timezone: Asia/Shanghai}
`

// A file that runs the qinglong panel's task command on a script is noted
// (every Run would fail, exit code 127), and so is one that runs Python
// without -u or PYTHONUNBUFFERED (its live log stays empty until Python
// flushes); a task program given no script file, and Python run
// unbuffered, are not.
func TestAFileRunningThePanelsTaskCommandOrBufferedPythonIsNoted(t *testing.T) {
	t.Parallel()
	doc, err := Parse("jd.yaml", []byte(panelFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[NoteReason][]string{}
	for _, n := range Notes(doc, NoteScope{NowMs: 1_790_000_000_000}) {
		for _, it := range n.Items {
			got[n.Reason] = append(got[n.Reason], it["name"])
		}
		if n.Reason == NotePanelTaskCommand && !strings.Contains(n.String(), `"task: not found" (exit code 127)`) {
			t.Errorf("the task command's note: %s", n)
		}
		if n.Reason == NotePythonBuffered && !strings.Contains(n.String(), "python3 -u") {
			t.Errorf("Python's note: %s", n)
		}
	}
	if w := "bean fruit"; strings.Join(got[NotePanelTaskCommand], " ") != w {
		t.Errorf("noted for the task command: %v, want %s", got[NotePanelTaskCommand], w)
	}
	if w := "check argv"; strings.Join(got[NotePythonBuffered], " ") != w {
		t.Errorf("noted for buffered Python: %v, want %s", got[NotePythonBuffered], w)
	}
}
