package console

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A paused row's Resume on the triggers list has a note box, labelled in
// the page's language, inside its own form (no script needed): a note
// typed there is kept with the resume's record as the batch form keeps
// it (trimmed, the same actor), and one tap with the box left empty
// still resumes, with no note.
func TestARowsResumeTakesAnOptionalNoteRecordedAsTheBatchFormRecordsIt(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	a, other := b.triggers["a"], b.triggers["b"]
	pause := func(id string) {
		t.Helper()
		if w := b.send(apitoken.Operate, "/triggers/"+id+"/pause", url.Values{}); w.Code != http.StatusSeeOther {
			t.Fatalf("pause: %d\n%s", w.Code, w.Body)
		}
	}
	pause(a)
	pause(other)
	for l, label := range map[string]string{"en": "Note (optional)", "zh": "备注（可选）"} {
		row := listRow(b.do(apitoken.Operate, "/triggers?project=shop&lang="+l, nil).Body.String(), a)
		form := regexp.MustCompile(`(?s)<form method="post" action="/triggers/` + a + `/resume" class="inline">(.*?)</form>`).FindStringSubmatch(row)
		if form == nil || !regexp.MustCompile(`<input name="note" [^>]*placeholder="`+regexp.QuoteMeta(label)+`"`).MatchString(form[1]) {
			t.Fatalf("the paused row in %s has no note box labelled %q inside its Resume form:\n%s", l, label, row)
		}
	}
	form := resumeForm(listRow(b.do(apitoken.Operate, "/triggers?project=shop", nil).Body.String(), a), a)
	form.Set("note", " db back up ")
	if w := b.send(apitoken.Operate, "/triggers/"+a+"/resume", form); w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/triggers?") {
		t.Fatalf("the row's Resume with a note: %d to %q; want 303 back to the list", w.Code, w.Header().Get("Location"))
	}
	b.do(apitoken.Operate, "/triggers/batch", url.Values{"do": {"resume"}, "id": {other}, "note": {" db back up "}})
	paused, row := b.paused(t, "a")
	_, batch := b.paused(t, "b")
	if paused || row.Action != "resume" || row.Note != "db back up" || row.Note != batch.Note || row.Actor != batch.Actor {
		t.Errorf("after the row's Resume with a note: paused %v, record %+v; want resumed, recorded as the batch's %+v", paused, row, batch)
	}
	pause(a)
	form = resumeForm(listRow(b.do(apitoken.Operate, "/triggers?project=shop", nil).Body.String(), a), a)
	if w := b.send(apitoken.Operate, "/triggers/"+a+"/resume", form); w.Code != http.StatusSeeOther {
		t.Fatalf("the row's Resume in one tap: %d", w.Code)
	}
	if paused, rec := b.paused(t, "a"); paused || rec.Action != "resume" || rec.Note != "" {
		t.Errorf("after one tap on the row's Resume: paused %v, record %+v; want resumed with no note", paused, rec)
	}
}
