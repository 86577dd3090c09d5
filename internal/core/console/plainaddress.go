package console

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
)

// cameOverPlainHTTP reports whether a sign-in or setup form without its
// cookie was sent from a page the browser loaded over plain HTTP while
// the console's cookies are Secure (an https --console-url in front of a
// plain listener): the browser never kept the form's cookie, and would
// not send the session's back either, so the form cannot work at this
// address whatever is typed in it. The form's Origin says where its page
// was loaded from (its Referer where a browser sends no Origin). A browser
// that keeps Secure cookies over plain HTTP (on localhost) sends the
// cookie and is never asked this.
func (c *Console) cameOverPlainHTTP(r *http.Request) bool {
	if !c.cfg.Secure {
		return false
	}
	from := r.Header.Get("Origin")
	if from == "" || from == "null" {
		from = r.Referer()
	}
	u, err := url.Parse(from)
	return err == nil && strings.EqualFold(u.Scheme, "http")
}

// usePublicAddress answers such a form with a page saying why it cannot
// work here and linking the page at the console's public address
// (Config.PublicURL; without one, this host over https).
func (c *Console) usePublicAddress(w http.ResponseWriter, r *http.Request, page string) {
	base := strings.TrimSuffix(c.cfg.PublicURL, "/")
	if base == "" {
		base = "https://" + r.Host
	}
	to := base + page
	link := template.HTML(`<a href="` + template.HTMLEscapeString(to) + `">` + escapeText(to) + `</a>`) //nolint:gosec // G203: the address is escaped
	c.failWithHTML(w, r, nil, http.StatusForbidden, formatText(tr(lang(r), "err.plainhttp"), link))
}
