package console

import (
	"html/template"
	"strconv"
)

func strconvItoa(n int64) string { return strconv.FormatInt(n, 10) }

// pages are the templates each rendered page combines with the layout.
var pages = []string{"error", "signin", "overview", "triggers", "trigger", "backfill", "runs", "run", "definitions", "newtask", "edittask", "editschedule", "tokens", "workers", "local", "notifications", "secrets", "batch", "setup", "account", "audit", "crontabimport", "scriptsimport", "projectenv", "scripts", "backup", "subscriptions", "deps", "qlpanel"}

// parseTemplates parses every page for a console served by binary, whose
// name the catalogue's commands take (see funcs). The layout and the
// partials every page shares are parsed once and cloned for each page,
// which then adds its own file: parsing them again for each page took
// twice as long, and every console start (every test server's too) pays it.
func parseTemplates(binary, dbFlags string) map[string]*template.Template {
	shared := template.Must(template.New("").Funcs(funcs(binary, dbFlags)).ParseFS(assets, "assets/layout.html", "assets/runrows.html", "assets/backfillform.html", "assets/confirm.html", "assets/danger.html", "assets/projectpause.html", "assets/importlines.html", "assets/scriptsskipped.html", "assets/envrows.html"))
	out := map[string]*template.Template{}
	for _, p := range pages {
		out[p] = template.Must(template.Must(shared.Clone()).New(p).ParseFS(assets, "assets/"+p+".html"))
	}
	return out
}
