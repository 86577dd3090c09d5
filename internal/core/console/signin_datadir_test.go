package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// Whoever reaches the server reads the sign-in page before signing in:
// the commands it gives name --data-dir with a placeholder, never the
// data directory's path, in English and in Chinese.
func TestTheSignInPageNamesNoDataDirectoryPath(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	c := New(Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, Users: st, Export: st, Binary: "ql-edge", DatabaseFlags: " --data-dir /srv/qinglong-7f3a"})
	for _, l := range []string{"en", "zh"} {
		w := httptest.NewRecorder()
		c.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/signin?lang="+l, nil))
		body := w.Body.String()
		if w.Code != http.StatusOK || strings.Contains(body, "qinglong-7f3a") {
			t.Fatalf("lang %s: the sign-in page (%d) names the data directory's path:\n%s", l, w.Code, body)
		}
		if !strings.Contains(body, "DATA_DIR") {
			t.Errorf("lang %s: the sign-in page's commands name no --data-dir placeholder:\n%s", l, body)
		}
	}
}
