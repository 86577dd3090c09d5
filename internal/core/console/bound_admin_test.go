package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// errorMessage is an error page's message.
var errorMessage = regexp.MustCompile(`id="error-message">.*?</p>`)

// boundToAlpha is the store's accounts, each read bound to project alpha,
// an owner too, which no store keeps (an owner is never bound): what the
// console meets were a role that may publish ever bound.
type boundToAlpha struct{ account.Authenticator }

func (b boundToAlpha) UserByID(ctx context.Context, id string) (account.User, error) {
	u, err := b.Authenticator.UserByID(ctx, id)
	u.Projects = []string{"alpha"}
	return u, err
}

// No user bound to projects reaches the admin pages over every project,
// whatever its role: every /definitions, /tokens, /secrets and /audit
// route refuses it 403 project_not_in_scope before it reads or changes
// anything, an owner's session bound to alpha included, so none sees or
// publishes another project's definitions there (the picker of every
// project, a form's project, a file's project:), nor makes a token, sets
// a secret or reads a record of every project. A session of every
// project still gets the pages.
func TestABoundUserOfAnyRoleNeverReachesTheAdminPagesOfEveryProject(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := sqlitetest.Open(t)
	for _, name := range []string{"alpha", "charlie"} {
		if _, err := st.ProjectSave(ctx, project.Project{ID: ids.New(), Name: name, Status: project.Active}); err != nil {
			t.Fatal(err)
		}
	}
	svc := &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	c := New(Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, TokenAdmin: st, Users: boundToAlpha{st}, Export: st, Definitions: svc})
	const hash = "$argon2id$placeholder"
	for _, u := range []struct {
		name string
		role account.Role
	}{{"root", account.Owner}, {"ops", account.Operator}} {
		id := ids.New()
		if _, err := st.UserCreate(ctx, account.NewUser{ID: id, Name: u.name, Role: u.role, Hash: hash}); err != nil {
			t.Fatal(err)
		}
		c.sessions.add(&session{id: u.name, csrf: "k", userID: id, stamp: account.PasswordStamp(hash), name: u.name, scope: u.role.Scope(), expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	}
	send := func(who, method, path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, nil)
		if method == http.MethodPost {
			r = httptest.NewRequest(method, path, strings.NewReader(url.Values{"csrf": {"k"}, "project": {"charlie"}, "yaml": {"project: charlie\n"}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: who})
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		return w
	}
	adminPage := func(pattern string) bool {
		for _, prefix := range []string{"/definitions", "/tokens", "/secrets", "/audit", "/backup"} {
			if strings.HasPrefix(pattern, prefix) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, rt := range routes {
		if !adminPage(rt.pattern) && rt.projects != adminOfEveryProject {
			continue
		}
		n++
		if rt.projects != adminOfEveryProject {
			t.Errorf("%s %s is not refused to a bound user as an admin page over every project", rt.method, rt.pattern)
		}
		path := strings.ReplaceAll(rt.pattern, "{name}", "ci")
		w := send("root", rt.method, path+"?project=charlie")
		said := errorMessage.FindString(w.Body.String())
		if w.Code != http.StatusForbidden || !strings.Contains(said, "is bound to the project alpha") || strings.Contains(said, "charlie") || strings.Contains(w.Body.String(), `<option value="charlie"`) {
			t.Errorf("%s %s for an owner bound to alpha: %d; want 403 project_not_in_scope, offering and naming no other project:\n%s", rt.method, rt.pattern, w.Code, w.Body)
		}
		if w := send("ops", rt.method, path); w.Code != http.StatusForbidden {
			t.Errorf("%s %s for an operator bound to alpha: %d; want 403", rt.method, rt.pattern, w.Code)
		}
	}
	if n == 0 {
		t.Fatal("the route table has no admin page over every project")
	}
	unbound := New(Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, TokenAdmin: st, Users: st, Export: st, Definitions: svc})
	unbound.sessions = c.sessions
	for _, path := range []string{"/definitions?project=charlie", "/tokens"} {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "root"})
		w := httptest.NewRecorder()
		unbound.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Errorf("%s for an owner of every project: %d; want it shown:\n%s", path, w.Code, w.Body)
		}
	}
}
