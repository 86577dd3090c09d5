package server

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The overview of a server without a trigger, where a new user lands after
// the first sign-in, says that nothing runs and why, in the page's
// language, and leads an admin to New task; a server with a trigger says
// nothing of it.
func TestTheOverviewOfAServerWithoutTriggersLeadsToNewTask(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	site := &consoleSite{dir: dir, tokens: map[apitoken.Scope]string{}}
	for _, s := range []apitoken.Scope{apitoken.Read, apitoken.Admin} {
		if site.tokens[s], _, err = apitoken.Create(t.Context(), b.Store, "tester", ids.New(), "console-"+string(s), s, 0); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	srv, err := Start(t.Context(), Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	site.srv, site.base = srv, "http://"+srv.Addr()
	newTask := `<a id="overview-newtask" class="button" href="/definitions/new">`
	for _, c := range []struct {
		scope      apitoken.Scope
		lang, want string
		offered    bool
	}{
		{apitoken.Admin, "en", "No trigger exists yet, so nothing runs", true},
		{apitoken.Admin, "zh", "还没有任何触发器，所以什么都不会运行", true},
		{apitoken.Read, "en", "No trigger exists yet, so nothing runs", false},
	} {
		hc := consoleClient(t)
		site.signIn(t, hc, site.tokens[c.scope])
		_, page := httpcall.Form(t, hc, http.MethodGet, site.base+"/?lang="+c.lang, nil)
		if !strings.Contains(page, `<p id="no-triggers">`+c.want) || strings.Contains(page, newTask) != c.offered {
			t.Errorf("%s overview in %s: want %q, New task offered %v:\n%s", c.scope, c.lang, c.want, c.offered, page)
		}
	}
	full := startConsoleSite(t)
	hc := consoleClient(t)
	full.signIn(t, hc, full.tokens[apitoken.Admin])
	if _, page := httpcall.Form(t, hc, http.MethodGet, full.base+"/?lang=en", nil); strings.Contains(page, `id="no-triggers"`) {
		t.Errorf("the overview of a server with a trigger says it has none:\n%s", page)
	}
}
