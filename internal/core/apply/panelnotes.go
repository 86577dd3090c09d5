package apply

import (
	"regexp"
	"strings"

	"github.com/qinglong/qinglong/internal/core/task"
)

// The notes of a file written the way the qinglong panel (青龙) runs
// scripts, which its users write first.
const (
	// NotePanelTaskCommand is tasks whose script runs "task SCRIPT", the
	// panel's command, which no server here has: name.
	NotePanelTaskCommand NoteReason = "defs_note_panel_task_command"
	// NotePythonBuffered is tasks that run Python without -u and without
	// PYTHONUNBUFFERED in their env, whose live log stays empty until
	// Python flushes a block: name.
	NotePythonBuffered NoteReason = "defs_note_python_buffered"
)

// panelTaskCall is a command of a script that runs the panel's task
// command on a script file (task jd_bean_sign.js, task /ql/scripts/x.py
// now): a task program of another kind (Taskwarrior, go-task) is given no
// script file, so it is not taken for the panel's.
var panelTaskCall = regexp.MustCompile(`(?m)(^|[;&|(]|\bthen|\bdo)\s*task\s+\S+\.(js|mjs|cjs|ts|py|sh)\b`)

// pythonProgram is a word naming a Python interpreter: python, python3,
// python3.12, or one of them by its path.
var pythonProgram = regexp.MustCompile(`^(\S*/)?python[0-9.]*$`)

// PanelTaskNote is the note of doc's tasks whose script runs the panel's
// task command: every Run of such a task fails, exit code 127.
func PanelTaskNote(doc *Document) (Note, bool) {
	var items []map[string]string
	for _, t := range doc.Tasks {
		if t.Spec.Command.Mode == task.ModeShell && panelTaskCall.MatchString(t.Spec.Command.Script) {
			items = append(items, map[string]string{"name": t.Spec.Name})
		}
	}
	return capped(NotePanelTaskCommand, items)
}

// PythonBufferedNote is the note of doc's tasks that run Python with its
// output buffered: Python writes to a pipe in blocks of several KiB, so
// the Run's live log shows nothing until a block fills or the script
// ends, which looks like a task that hangs.
func PythonBufferedNote(doc *Document) (Note, bool) {
	var items []map[string]string
	for _, t := range doc.Tasks {
		if runsBufferedPython(t.Spec.Command) {
			items = append(items, map[string]string{"name": t.Spec.Name})
		}
	}
	return capped(NotePythonBuffered, items)
}

// runsBufferedPython reports whether c starts Python without -u and
// without PYTHONUNBUFFERED in its env.
func runsBufferedPython(c task.Command) bool {
	for _, e := range c.Env {
		if e.Name == "PYTHONUNBUFFERED" {
			return false
		}
	}
	if c.Mode == task.ModeArgv {
		return pythonProgram.MatchString(c.Path) && !unbufferedFlag(c.Args)
	}
	words := strings.Fields(c.Script)
	for i, w := range words {
		if pythonProgram.MatchString(w) && !unbufferedFlag(words[i+1:]) {
			return true
		}
	}
	return false
}

// unbufferedFlag reports whether Python's options, the words before its
// script, include -u (alone or among other one-letter options, -uB).
func unbufferedFlag(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "-m" || a == "-c" {
			return false
		}
		if !strings.HasPrefix(a, "--") && strings.Contains(a[1:], "u") {
			return true
		}
	}
	return false
}
