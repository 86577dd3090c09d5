package console

import (
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
)

// startingRetry is how long a starting page waits before it reloads
// itself, and the Retry-After it answers with, in seconds.
const startingRetry = 5

// StepIntegrityCheck is the start's step while it reads the database file
// whole (SQLite's quick_check), the step a browser most often meets: the
// page says that is what the server is doing.
const StepIntegrityCheck = "integrity_check"

// StepMigrating is the start's step while it applies a migration that
// reads every Run or attempt (minutes on a long history): the page says
// the database is being upgraded and not to stop the server.
const StepMigrating = "migrating"

// startingPage is the whole page: no script, no style sheet, nothing read
// from the database (none is open yet), so it needs nothing the console
// serves once started; the browser draws it dark where its system is
// (color-scheme), as the console's pages are.
var startingPage = template.Must(template.New("starting").Parse(`<!doctype html>
<html lang="{{.HTMLLang}}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<meta http-equiv="refresh" content="{{.Retry}}"><title>{{.Title}}</title></head>
<body><h1 id="starting-title">{{.Title}}</h1><p id="starting-what">{{.What}}</p><p id="starting-wait">{{.Wait}}</p></body>
</html>
`))

// StartingPage answers a browser asking for a console page while the
// server starts and serves no console yet, at start step step: 503 with a
// small page in the browser's language (as the console picks it) saying
// what the server is doing and to wait, reloading itself, with
// Retry-After. It answers nothing and returns false for any other request
// (the API, a script, a form sent), which keeps its JSON answer.
func StartingPage(w http.ResponseWriter, r *http.Request, step string) bool {
	if !wantsPage(r) {
		return false
	}
	l := lang(r)
	what := fmt.Sprintf(tr(l, "starting.other"), step)
	title := tr(l, "starting.title.other")
	switch step {
	case StepIntegrityCheck:
		what, title = tr(l, "starting.check"), tr(l, "starting.title.check")
	case StepMigrating:
		what, title = tr(l, "starting.migrate"), tr(l, "starting.title.migrate")
	}
	htmlLang := standalonePage(w.Header(), l)
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(startingRetry))
	h.Set("Vary", "Accept, Accept-Language, Cookie")
	w.WriteHeader(http.StatusServiceUnavailable)
	if r.Method == http.MethodHead {
		return true
	}
	_ = startingPage.Execute(w, map[string]any{ // the browser went away; nothing to do
		"HTMLLang": htmlLang, "Retry": startingRetry, "Title": title, "What": what, "Wait": fmt.Sprintf(tr(l, "starting.wait"), startingRetry),
	})
	return true
}

// wantsPage reports whether r is a browser opening a console page: a GET
// or HEAD of a path outside /api/ that accepts HTML. A form sent is not:
// reloading the page would send it again.
func wantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		return false
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// standalonePage sets the headers of a page served outside the console's
// layout (while the server starts, or to a host it does not answer as):
// HTML that loads nothing, is never framed nor kept, and returns the
// html element's lang for l.
func standalonePage(h http.Header, l string) string {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	if l == "zh" {
		return "zh-CN"
	}
	return "en"
}
