package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// A session left unused for its idle time ends, long before its lifetime
// is out: the page it was opened for sends the browser to sign in, which
// says the session ended for going unused (in the page's language), and
// the stored session is gone. A session used within its idle time goes on.
func TestASessionUnusedForItsIdleTimeEndsAndTheSigninPageSaysWhy(t *testing.T) {
	site := newSessionSite(t).serve(Config{})
	cookie := site.signIn(t)
	// Used every 50 minutes, the session goes on past the idle time.
	for range 3 {
		site.nowMs.Add((50 * time.Minute).Milliseconds())
		if w := site.get(cookie, "/account"); w.Code != http.StatusOK {
			t.Fatalf("used 50 minutes after the last use: %d, want the page", w.Code)
		}
	}
	site.nowMs.Add(DefaultSessionIdle.Milliseconds())
	w := site.get(cookie, "/account?lang=zh")
	to, err := url.Parse(w.Header().Get("Location"))
	if w.Code != http.StatusSeeOther || err != nil || to.Path != "/signin" || !to.Query().Has(idleParam) || to.Query().Get("next") != "/account?lang=zh" {
		t.Fatalf("an hour unused: %d to %q, want sent to sign in, marked idle, on the way back to the page", w.Code, w.Header().Get("Location"))
	}
	if _, err := site.st.SessionByDigest(t.Context(), websession.Digest(cookie)); qlerror.CodeOf(err) != qlerror.NotFound {
		t.Fatalf("the idle session is still stored (%v)", err)
	}
	page := httptest.NewRecorder()
	site.c.ServeHTTP(page, httptest.NewRequest(http.MethodGet, to.String(), nil))
	if want := fmt.Sprintf(tr("zh", "signin.idle"), 60); !strings.Contains(page.Body.String(), want) {
		t.Fatalf("the sign-in page does not say why the session ended (%q):\n%s", want, page.Body)
	}
}
