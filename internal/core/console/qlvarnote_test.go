package console

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
)

// The note of a script reading a QL_ variable QingLong does not set reads
// whole in Chinese, naming the variable and the closest one it sets; in
// English it is `ql apply`'s line.
func TestTheNoteOfAnUnknownQLVariableReadsWholeInChinese(t *testing.T) {
	t.Parallel()
	doc, err := apply.Parse("jd.yaml", []byte("project: jd\ntasks:\n  - {name: bean, script: 'echo $QL_SCHEDULE_AT'}\n"+
		"triggers:\n  - {name: bean, task: bean, cron: '0 5 0 * * *', timezone: Asia/Shanghai}\n"))
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, n := range apply.Notes(doc, apply.NoteScope{NowMs: 1_790_000_000_000}) {
		if n.Reason != apply.NoteUnknownQLVariable {
			continue
		}
		seen = true
		want := "（任务：bean（$QL_SCHEDULE_AT；最接近的是 QL_SCHEDULED_AT））。"
		if zh := noteText("zh", n); !strings.Contains(zh, want) || !strings.Contains(zh, "QL_ATTEMPT_NUMBER、QL_PROJECT") || strings.Contains(zh, "{") {
			t.Errorf("the note in Chinese: %q, want it whole, ending %q", zh, want)
		}
		if en := noteText("en", n); en != n.String() {
			t.Errorf("the note in English: %q, want ql apply's %q", en, n.String())
		}
	}
	if !seen {
		t.Error("no note of the unknown QL_ variable")
	}
}
