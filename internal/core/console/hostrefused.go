package console

import (
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
)

// hostRefusedPage is the whole page: no script, no style sheet, nothing
// read from the database, as the starting page.
var hostRefusedPage = template.Must(template.New("hostrefused").Parse(`<!doctype html>
<html lang="{{.HTMLLang}}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>{{.Title}}</title></head>
<body><h1 id="host-title">{{.Title}}</h1><p id="host-why">{{.Why}}</p><p id="host-answers">{{.Answers}}</p>
{{if .At}}<p id="host-at">{{.AtSaid}} <a href="{{.At}}">{{.At}}</a></p>{{end}}<p id="host-flag">{{.Flag}} <code>--allowed-hosts {{.Host}}</code></p></body>
</html>
`))

// HostRefusedPage answers a browser that opened a console page by a name
// the server does not answer to (the API's host guard refused it): 421
// with a small page in the browser's language saying which names and
// addresses the server answers to (answers, and the address the
// connection came to), the link to the page at that address (at, a URL,
// "" when unknown), and the flag that adds the name. It answers nothing
// and returns false for any other request (the API, a script, a form
// sent), which keeps its JSON answer.
func (c *Console) HostRefusedPage(w http.ResponseWriter, r *http.Request, host string, answers []string, at string) bool {
	if !wantsPage(r) {
		return false
	}
	var names []string
	for _, a := range answers {
		if !slices.Contains(names, a) {
			names = append(names, a)
		}
	}
	l := lang(r)
	htmlLang := standalonePage(w.Header(), l)
	h := w.Header()
	h.Set("Vary", "Accept, Accept-Language, Cookie")
	w.WriteHeader(http.StatusMisdirectedRequest)
	if r.Method == http.MethodHead {
		return true
	}
	_ = hostRefusedPage.Execute(w, map[string]any{ // the browser went away; nothing to do
		"HTMLLang": htmlLang, "Host": host, "At": at,
		"Title":   fmt.Sprintf(tr(l, "host.title"), host),
		"Why":     fmt.Sprintf(tr(l, "host.why"), host),
		"Answers": fmt.Sprintf(tr(l, "host.answers"), strings.Join(names, tr(l, "host.sep"))),
		"AtSaid":  tr(l, "host.at"),
		"Flag":    fmt.Sprintf(tr(l, "host.flag"), host),
	})
	return true
}
