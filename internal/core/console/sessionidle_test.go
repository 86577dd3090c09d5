package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/websession"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// A session left unused for its idle time ends, long before its lifetime
// is out: the page it was opened for sends the browser to sign in, which
// says the session ended for going unused (in the page's language), and
// the stored session is gone. A session used within its idle time goes on.
func TestASessionUnusedForItsIdleTimeEndsAndTheSigninPageSaysWhy(t *testing.T) {
	var storeMs atomic.Int64
	storeMs.Store(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli())
	st := sqlitetest.OpenAt(t, filepath.Join(t.TempDir(), "ql.db"), storeMs.Load)
	secret, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "web", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := New(Config{Tokens: st, Sessions: st, NowMs: storeMs.Load})
	w := tokenSignin(c, secret, "192.0.2.1")
	var cookie string
	for _, ck := range w.Result().Cookies() {
		if ck.Name == sessionCookie {
			cookie = ck.Value
		}
	}
	if cookie == "" {
		t.Fatalf("sign-in: %d without a session cookie", w.Code)
	}
	get := func(path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		return w
	}
	// Used every 50 minutes, the session goes on past the idle time.
	for range 3 {
		storeMs.Add((50 * time.Minute).Milliseconds())
		if w := get("/account"); w.Code != http.StatusOK {
			t.Fatalf("used 50 minutes after the last use: %d, want the page", w.Code)
		}
	}
	storeMs.Add(DefaultSessionIdle.Milliseconds())
	w = get("/account?lang=zh")
	to, err := url.Parse(w.Header().Get("Location"))
	if w.Code != http.StatusSeeOther || err != nil || to.Path != "/signin" || !to.Query().Has(idleParam) || to.Query().Get("next") != "/account?lang=zh" {
		t.Fatalf("an hour unused: %d to %q, want sent to sign in, marked idle, on the way back to the page", w.Code, w.Header().Get("Location"))
	}
	if _, err := st.SessionByDigest(t.Context(), websession.Digest(cookie)); qlerror.CodeOf(err) != qlerror.NotFound {
		t.Fatalf("the idle session is still stored (%v)", err)
	}
	page := httptest.NewRecorder()
	c.ServeHTTP(page, httptest.NewRequest(http.MethodGet, to.String(), nil))
	if want := fmt.Sprintf(tr("zh", "signin.idle"), 60); !strings.Contains(page.Body.String(), want) {
		t.Fatalf("the sign-in page does not say why the session ended (%q):\n%s", want, page.Body)
	}
}
