package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// Once a starting server says a migration step that reads every Run or
// attempt (minutes on a long history), /readyz answers 503 migrating, the
// API's refusal names that step, and a browser opening the console gets a
// page in its language saying the database is being upgraded and not to
// stop the server, rather than a bare "starting".
func TestAStartingServerSaysItIsUpgradingItsDatabaseWhileAMigrationReadsEveryRun(t *testing.T) {
	t.Parallel()
	s := &Server{cfg: Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	h := startingHandler(s.readiness)
	s.sayMigrationStep(sqlitestore.LongStep{Migration: "sqlite-0048-attempts-project", Column: "attempts.project_id", Runs: 120_000})
	ask := func(path, accept, language string) (int, string) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept", accept)
		req.Header.Set("Accept-Language", language)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code, w.Body.String()
	}
	const browser = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
	for _, c := range []struct {
		path, accept, language string
		want                   []string
	}{
		{"/readyz", "*/*", "", []string{`"reason":"migrating"`}},
		{"/api/v1/runs", "application/json", "", []string{"the server is starting (migrating)"}},
		{"/", browser, "en-US", []string{"QingLong is upgrading its database", "Do not stop the server now"}},
		{"/runs", browser, "zh-CN,zh;q=0.9", []string{"QingLong 正在升级数据库", "请不要在此时停止服务器"}},
	} {
		code, body := ask(c.path, c.accept, c.language)
		if code != http.StatusServiceUnavailable {
			t.Errorf("%s (%s): %d, want 503", c.path, c.language, code)
		}
		for _, want := range c.want {
			if !strings.Contains(body, want) {
				t.Errorf("%s (%s) during the migration says %q; want %q in it", c.path, c.language, body, want)
			}
		}
	}
}
