package schedule

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/audit"
)

// A project's resume records the note it was given, as its pause does,
// after the count of the triggers it changed; one given none records the
// count alone.
func TestAProjectsResumeRecordIsAuditedWithItsNote(t *testing.T) {
	t.Parallel()
	out := ProjectPauseResult{ProjectID: "p1", ProjectName: "shop", Changed: true, Triggers: 2}
	for note, want := range map[string]string{"release shipped": "2 trigger(s): release shipped", "": "2 trigger(s)"} {
		e := ProjectPauseRequest{Project: "shop", Note: note, Actor: "alice"}.Audited(out)
		if e.Action != audit.ProjectResumed || e.Note != want {
			t.Errorf("a resume with the note %q is audited as %s %q; want %s %q", note, e.Action, e.Note, audit.ProjectResumed, want)
		}
	}
}
