package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// On a cluster replica the sign-in page's commands that make the first
// account and a token say where the admin role's URL goes: the replica
// runs as the runtime role, which may create neither, so the bare
// command would be refused; in both languages.
func TestTheSigninPageOfAClusterReplicaSaysAccountsAreMadeWithTheAdminRolesURL(t *testing.T) {
	t.Parallel()
	for _, cluster := range []bool{false, true} {
		c := New(Config{Users: storeWithBob(t), AdminCredentials: cluster})
		for _, lang := range []string{"en", "zh-CN"} {
			r := httptest.NewRequest(http.MethodGet, "/signin", nil)
			r.Header.Set("Accept-Language", lang)
			w := httptest.NewRecorder()
			c.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				t.Fatalf("GET /signin: %d", w.Code)
			}
			said := strings.Count(w.Body.String(), "$QL_DATABASE_ADMIN_URL")
			if cluster && said != 2 || !cluster && said != 0 {
				t.Errorf("cluster %v, %s: the page names $QL_DATABASE_ADMIN_URL %d times, want it beside both commands on a cluster only:\n%s", cluster, lang, said, w.Body)
			}
		}
	}
}
