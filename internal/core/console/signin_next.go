package console

import (
	"net/url"
	"strings"
)

// maxNextLen bounds the page a sign-in returns to.
const maxNextLen = 2048

// signinFor is the sign-in page for a visit to the console page uri
// without a session, in the language lang asks for ("" for none): it
// returns there once signed in (a link from a notification to a Run's
// page, a bookmark), and the overview needs no note of it. The language
// is the sign-in page's too, which keeps it for the session as the
// switch does (render sets its cookie). idle marks a visit whose session
// has just ended for going unused, which the page says.
func signinFor(uri, lang string, idle bool) string {
	q := url.Values{}
	if idle {
		q.Set(idleParam, "")
	}
	if messages[lang] != nil {
		q.Set("lang", lang)
	}
	if uri != "/" && localPage(uri) != "" {
		q.Set("next", uri)
	}
	if len(q) == 0 {
		return "/signin"
	}
	return "/signin?" + q.Encode()
}

// afterSignin is where a sign-in sends the browser: the page it was on its
// way to, or the overview.
func afterSignin(r interface{ PostFormValue(string) string }) string {
	if next := localPage(r.PostFormValue("next")); next != "" {
		return next
	}
	return "/"
}

// localPage is s when it is a path of this console (with its query), and
// "" otherwise: a sign-in never sends the browser to another site ("//",
// a scheme or a host, a backslash browsers read as a slash) or back to
// the sign-in page.
func localPage(s string) string {
	if len(s) > maxNextLen || !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") || strings.ContainsAny(s, "\\\r\n\t") {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Path == "/signin" || strings.HasPrefix(u.Path, "/signin/") {
		return ""
	}
	return s
}
