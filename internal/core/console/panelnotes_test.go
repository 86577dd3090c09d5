package console

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
)

// The notes of a file running the qinglong panel's task command and
// Python buffered read whole in Chinese, naming the tasks and what to
// write instead; in English they are `ql apply`'s lines.
func TestTheNotesOfThePanelsTaskCommandAndBufferedPythonReadWholeInChinese(t *testing.T) {
	t.Parallel()
	doc, err := apply.Parse("jd.yaml", []byte("project: jd\ntasks:\n  - {name: bean, script: task jd_bean_sign.js}\n  - {name: check, script: python3 check.py}\n"+
		"triggers:\n  - {name: bean, task: bean, cron: '0 5 0 * * *', timezone: Asia/Shanghai}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[apply.NoteReason]string{
		apply.NotePanelTaskCommand: "这是青龙面板的命令，这里没有，因此它们的每次运行都会以“task: not found”（退出码 127）失败：请写出解释器和脚本的路径（node /ql/scripts/jd_bean_sign.js",
		apply.NotePythonBuffered:   "实时日志一直是空的：请用 python3 -u 运行，或在任务的 env 中设置 PYTHONUNBUFFERED: \"1\"（任务：check）。",
	}
	seen := 0
	for _, n := range apply.Notes(doc, apply.NoteScope{NowMs: 1_790_000_000_000}) {
		w, ok := want[n.Reason]
		if !ok {
			continue
		}
		seen++
		if zh := noteText("zh", n); !strings.Contains(zh, w) || strings.Contains(zh, "{") {
			t.Errorf("note %s in Chinese: %q, want it whole, saying %q", n.Reason, zh, w)
		}
		if en := noteText("en", n); en != n.String() {
			t.Errorf("note %s in English: %q, want ql apply's %q", n.Reason, en, n.String())
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d notes were given", seen, len(want))
	}
}
