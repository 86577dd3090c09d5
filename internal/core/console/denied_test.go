package console

import (
	"context"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// deniedMessage is the refusal deniedRuns answers: what may not be done,
// and who may do it.
const deniedMessage = "the server's database role may not read runs: grant it SELECT on them, or serve with a role that may"

// deniedRuns refuses every read of a Run as not allowed to this server.
type deniedRuns struct{ run.Reader }

func (deniedRuns) RunGet(context.Context, string) (run.Detail, error) {
	return run.Detail{}, qlerror.New(qlerror.PermissionDenied, "%s", deniedMessage)
}

// A page whose read is refused as not allowed answers 403 titled "Not
// allowed" in the page's language, with the refusal's own words, which
// say who may do it: not a 500 that hides them behind "something went
// wrong", as if the server were broken.
func TestAPageRefusedAsNotAllowedAnswers403WithTheRefusal(t *testing.T) {
	t.Parallel()
	for lang, title := range map[string]string{"en": "Not allowed", "zh": "不允许"} {
		_, get := liveLogConsole(t, deniedRuns{}, nil, time.Second)
		w, _ := get("/runs/r1?lang=" + lang)
		page := html.UnescapeString(w.Body.String())
		if w.Code != http.StatusForbidden || !strings.Contains(page, "<h1>"+title+"</h1>") || !strings.Contains(page, deniedMessage) {
			t.Errorf("%s: %d; want 403 titled %q with the refusal's message:\n%s", lang, w.Code, title, page)
		}
	}
}

// driftMessage is the refusal driftedRuns answers.
const driftMessage = "change c1 was already made with other content; send the change again under a new id"

// driftedRuns refuses every read of a Run as a change sent again with
// other content (MutationDrift).
type driftedRuns struct{ run.Reader }

func (driftedRuns) RunGet(context.Context, string) (run.Detail, error) {
	return run.Detail{}, qlerror.New(qlerror.MutationDrift, "%s", driftMessage)
}

// A page refused because a change was sent again with other content
// answers 409, as the API does, with the refusal's words: not a 500 that
// logs the user's own mistake as the server's.
func TestAPageRefusedAsAChangeSentAgainWithOtherContentAnswers409WithTheRefusal(t *testing.T) {
	t.Parallel()
	for lang, title := range map[string]string{"en": "Not done", "zh": "未执行"} {
		_, get := liveLogConsole(t, driftedRuns{}, nil, time.Second)
		w, _ := get("/runs/r1?lang=" + lang)
		page := html.UnescapeString(w.Body.String())
		if w.Code != http.StatusConflict || !strings.Contains(page, "<h1>"+title+"</h1>") || !strings.Contains(page, driftMessage) {
			t.Errorf("%s: %d; want 409 titled %q with the refusal's message:\n%s", lang, w.Code, title, page)
		}
	}
}
