package schedule

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A pause note is one line of plain text in any script: a control
// character, a text-direction override or invalid UTF-8 is refused with
// the character named, before any store is asked.
func TestAPauseNoteIsOneLineOfPlainText(t *testing.T) {
	t.Parallel()
	const id = "01a23300-0000-7000-8000-000000000000"
	for _, note := range []string{"", "deploying v2", "升级数据库，暂停两小时", "emoji 🚧 and accents é", "tabs and spaces  ok?"} {
		if err := (PauseRequest{TriggerID: id, Pause: true, Note: note}).Validate(); err != nil {
			t.Errorf("note %q refused: %v", note, err)
		}
	}
	for note, char := range map[string]string{
		"a\nfake line": "U+000A", "a\r\nb": "U+000D", "\x1b[31mred": "U+001B", "nul\x00": "U+0000",
		"tab\there": "U+0009", "evil\u202eexe.txt": "U+202E", "iso\u2066late": "U+2066", "bad \xff byte": "UTF-8",
	} {
		err := (PauseRequest{TriggerID: id, Pause: true, Note: note}).Validate()
		if qlerror.CodeOf(err) != qlerror.Invalid || !strings.Contains(err.Error(), char) {
			t.Errorf("note %q: %v; want Invalid naming %s", note, err, char)
		}
	}
}
