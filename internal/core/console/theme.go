package console

import "net/http"

// themeNames are the header's colour choices: light, dark, and the
// system's (the browser's prefers-color-scheme), which is the default.
var themeNames = map[string]bool{"light": true, "dark": true, "system": true}

// themeLink is one choice of the header's colour switch: the page again
// with ?theme= set, which keeps the choice in the ql_theme cookie as the
// language switch keeps its own, so it works without a script.
type themeLink struct {
	Name, Href string
	Current    bool
}

// themesOf is the request's colours (?theme=, then the switch's cookie;
// "" for the system's, which the stylesheet follows) and the switch's
// links.
func themesOf(r *http.Request) (string, []themeLink) {
	chosen := r.URL.Query().Get("theme")
	if !themeNames[chosen] {
		chosen = "system"
		if ck, err := r.Cookie(themeCookie); err == nil && themeNames[ck.Value] {
			chosen = ck.Value
		}
	}
	links := make([]themeLink, 0, len(themeNames))
	for _, n := range []string{"light", "dark", "system"} {
		links = append(links, themeLink{Name: n, Href: switchHref(r, "theme", n), Current: n == chosen})
	}
	if chosen == "system" {
		chosen = ""
	}
	return chosen, links
}
