package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// A console without a data directory to back up (a cluster replica's,
// whose database is PostgreSQL's) offers no Backup item, and its Backup
// address says how the cluster's database is backed up instead, in
// English and in Chinese; the download form there sends no archive.
func TestAClusterConsoleOffersNoBackupAndSaysHowToBackUpTheCluster(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	c := New(Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, Users: st, Export: st})
	const hash = "$argon2id$placeholder"
	id := ids.New()
	if _, err := st.UserCreate(t.Context(), account.NewUser{ID: id, Name: "root", Role: account.Owner, Hash: hash}); err != nil {
		t.Fatal(err)
	}
	c.sessions.add(&session{id: "admin", csrf: "k", userID: id, stamp: account.PasswordStamp(hash), name: "root", scope: account.Owner.Scope(), expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	for _, tc := range []struct{ method, path, want string }{
		{http.MethodGet, "/backup?lang=en", "pg_restore"},
		{http.MethodGet, "/backup?lang=zh", "PostgreSQL 自带的工具"},
		{http.MethodPost, "/backup/download?lang=en", "Backup and restore"},
	} {
		var body *strings.Reader
		if tc.method == http.MethodPost {
			body = strings.NewReader("csrf=k")
		} else {
			body = strings.NewReader("")
		}
		r := httptest.NewRequest(tc.method, tc.path, body)
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "admin"})
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		page := w.Body.String()
		if w.Code != http.StatusOK || !strings.Contains(page, tc.want) || strings.Contains(page, `id="nav-backup"`) || strings.Contains(page, `id="bk-download"`) || w.Header().Get("Content-Disposition") != "" {
			t.Errorf("%s %s on a cluster console: %d; want the page saying %q, no Backup item and no download:\n%s", tc.method, tc.path, w.Code, tc.want, page)
		}
	}
}
