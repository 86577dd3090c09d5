package console

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
)

// failedWithExit is the Run page, in l, of a Run whose one attempt ended
// with exit code exit.
func failedWithExit(t *testing.T, l string, exit int64) string {
	t.Helper()
	d := run.Detail{Run: run.Run{ID: "r1", State: run.Failed},
		Attempts: []run.Attempt{{Number: 1, State: run.AttemptFailed, ExitCode: &exit, ErrorCode: process.ErrorCodeExitNonZero}}}
	var buf bytes.Buffer
	if err := parseTemplates("ql", "")["run"].ExecuteTemplate(&buf, "layout", page{Lang: l, Data: map[string]any{"D": d}}); err != nil {
		t.Fatal(err)
	}
	return html.UnescapeString(buf.String())
}

// An attempt that exited 127 (the shell found no command: a program not
// installed, or the qinglong panel's task) or 126 (found, not executable)
// says so on its row, and what to do, in English and in Chinese; any
// other exit code gets no such line.
func TestAnAttemptThatExited127Or126SaysTheShellCouldNotRunACommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		l    string
		exit int64
		want []string
	}{
		{"en", 127, []string{"Exit code 127 is the shell's", "command not found", "<code>task</code>", "<code>node /ql/scripts/jd_bean_sign.js</code>"}},
		{"zh", 127, []string{"退出码 127 表示 Shell 找不到命令", "青龙面板的 <code>task</code> 命令", "<code>node /ql/scripts/jd_bean_sign.js</code>"}},
		{"en", 126, []string{"Exit code 126", "<code>chmod +x</code>"}},
		{"zh", 126, []string{"退出码 126 表示 Shell 找到了命令但无法执行", "<code>chmod +x</code>"}},
	} {
		p := failedWithExit(t, c.l, c.exit)
		_, hint, ok := strings.Cut(p, `<div class="attempt-message exit-hint">`)
		hint, _, _ = strings.Cut(hint, "</div>")
		for _, w := range c.want {
			if !ok || !strings.Contains(hint, w) {
				t.Errorf("%s, exit %d: the attempt's row does not say %q:\n%s", c.l, c.exit, w, p)
			}
		}
	}
	for _, l := range []string{"en", "zh"} {
		if p := failedWithExit(t, l, 1); strings.Contains(p, "exit-hint") {
			t.Errorf("%s: exit code 1 has a hint:\n%s", l, p)
		}
	}
}
