package console

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A batch Resume takes the form's note as a batch Pause does: each
// trigger it resumes keeps the note with its resume's record, and a note
// that is no one line of text is refused whole, resuming none.
func TestABatchResumeKeepsTheFormsNoteWithEachResume(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	ids := []string{b.triggers["a"], b.triggers["b"]}
	b.do(apitoken.Operate, "/triggers/batch?lang=en", url.Values{"do": {"pause"}, "id": ids})
	if w := b.do(apitoken.Operate, "/triggers/batch?lang=en", url.Values{"do": {"resume"}, "id": ids, "note": {"two\nlines"}}); w.Code != http.StatusBadRequest {
		t.Fatalf("a batch resume with a note of two lines: %d, want 400", w.Code)
	}
	for _, name := range []string{"a", "b"} {
		if paused, _ := b.paused(t, name); !paused {
			t.Fatalf("%s was resumed by a form refused whole", name)
		}
	}
	b.do(apitoken.Operate, "/triggers/batch?lang=en", url.Values{"do": {"resume"}, "id": ids, "note": {" db back up "}})
	for _, name := range []string{"a", "b"} {
		if paused, rec := b.paused(t, name); paused || rec.Action != "resume" || rec.Note != "db back up" {
			t.Errorf("%s after a batch resume with a note: paused %v, newest record %+v; want resumed with the note", name, paused, rec)
		}
	}
}
