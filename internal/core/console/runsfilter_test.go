package console

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
)

// A Runs filter's state that no Run can be in (a typo in an address) is
// not dropped: the page answers 400 saying so in its language, naming the
// value and every state the filter takes as its list names them, and lists
// no Runs.
func TestARunsStateFilterThatIsNoStateIsSaidWithTheStatesItTakes(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	for _, l := range []string{"en", "zh"} {
		w := site.do(apitoken.Read, "/runs?state=runing&lang="+l, nil)
		page := html.UnescapeString(w.Body.String())
		_, said, _ := strings.Cut(page, `id="runs-error">`)
		said, _, _ = strings.Cut(said, "</p>")
		if w.Code != http.StatusBadRequest || !strings.Contains(said, "runing") {
			t.Fatalf("%s: %d saying %q, want 400 naming the value:\n%s", l, w.Code, said, page)
		}
		for _, st := range run.Reachable {
			if !strings.Contains(said, word(l, "run", st)) {
				t.Errorf("%s: %q does not name the state %s as the filter does (%s)", l, said, st, word(l, "run", st))
			}
		}
		if strings.Contains(page, `<table class="cards">`) {
			t.Errorf("%s: a filter of no state listed Runs:\n%s", l, page)
		}
	}
}
