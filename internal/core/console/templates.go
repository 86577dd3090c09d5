package console

import (
	"html/template"
	"strconv"
)

func strconvItoa(n int64) string { return strconv.FormatInt(n, 10) }

// pages are the templates each rendered page combines with the layout.
var pages = []string{"error", "signin", "overview", "triggers", "trigger", "backfill", "runs", "run", "definitions", "newtask", "edittask", "editschedule", "tokens", "workers", "local", "notifications", "secrets", "batch", "setup", "account", "audit", "crontabimport", "scriptsimport", "projectenv", "scripts", "backup", "subscriptions", "deps", "qlpanel"}

// parseTemplates parses every page for a console served by binary, whose
// name the catalogue's commands take (see funcs).
func parseTemplates(binary, dbFlags string) map[string]*template.Template {
	out := map[string]*template.Template{}
	fm := funcs(binary, dbFlags)
	for _, p := range pages {
		out[p] = template.Must(template.New(p).Funcs(fm).ParseFS(assets, "assets/layout.html", "assets/runrows.html", "assets/backfillform.html", "assets/confirm.html", "assets/danger.html", "assets/projectpause.html", "assets/importlines.html", "assets/scriptsskipped.html", "assets/envrows.html", "assets/"+p+".html"))
	}
	return out
}
