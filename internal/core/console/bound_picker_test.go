package console

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// pickerOption is one project a triggers page's picker offers.
var pickerOption = regexp.MustCompile(`<option value="([a-z0-9-]+)"`)

// TestABoundUsersPickerOffersItsProjectsWhateverHowManyOthersExist: with
// more other projects than a picker offers, all named to sort before a
// user's own two, the triggers page's picker of a user bound to those two
// offers both of them and nothing else; an unbound user's still offers the
// first projectsOffered.
func TestABoundUsersPickerOffersItsProjectsWhateverHowManyOthersExist(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "ql.db")
	st := sqlitetest.OpenAt(t, path, func() int64 { return time.Now().UnixMilli() })
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
		INSERT INTO projects (id, name, status, created_at_ms, updated_at_ms) SELECT printf('other-%05d', i), printf('aaa-%05d', i), 'active', 1, 1 FROM n`,
		projectsOffered+10); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"own", "zulu"} {
		if _, err := st.ProjectSave(ctx, project.Project{ID: ids.New(), Name: name, Status: project.Active}); err != nil {
			t.Fatal(err)
		}
	}
	c := New(Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, Users: st, Export: st})
	const hash = "$argon2id$placeholder"
	for _, u := range []struct {
		name     string
		projects []string
	}{{"ann", []string{"own", "zulu"}}, {"bob", nil}} {
		id := ids.New()
		if _, err := st.UserCreate(ctx, account.NewUser{ID: id, Name: u.name, Role: account.Viewer, Hash: hash, Projects: u.projects}); err != nil {
			t.Fatal(err)
		}
		c.sessions.add(&session{id: u.name, csrf: "k", userID: id, stamp: account.PasswordStamp(hash), name: u.name, scope: account.Viewer.Scope(), expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	}
	offered := func(user string) []string {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, "/triggers", nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: user})
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("GET /triggers as %s: %d %s", user, w.Code, w.Body)
		}
		page := w.Body.String()
		picker := page[strings.Index(page, `id="triggers-project"`):]
		picker = picker[:strings.Index(picker, "</select>")]
		var out []string
		for _, m := range pickerOption.FindAllStringSubmatch(picker, -1) {
			out = append(out, m[1])
		}
		return out
	}
	if got := offered("ann"); fmt.Sprint(got) != "[own zulu]" {
		t.Errorf("the picker of a user bound to own and zulu, %d other projects first, offers %d projects: %.80v; want own and zulu alone", projectsOffered+10, len(got), got)
	}
	if got := offered("bob"); len(got) != projectsOffered || got[0] != "aaa-00001" {
		t.Errorf("the picker of a user of every project offers %d projects from %.20v; want the first %d", len(got), got, projectsOffered)
	}
}
