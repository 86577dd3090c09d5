package console

import (
	"net/http"
	"net/url"
)

// The signed-out forms (sign-in, its second step, setup) have no session
// to hold their CSRF value, so it is a double-submit one: a random value
// in a cookie, HttpOnly and SameSite=Strict, that the form carries too and
// the POST must match (sameSecret). It is checked against nothing this
// process keeps, so a form loaded from one replica is taken by another,
// and one loaded before a restart by the restarted server.
//
// A double-submit value alone would take one a page elsewhere chose and
// planted as the cookie (from a neighbouring subdomain, or another port of
// the same host), signing the victim in to the attacker's account (login
// CSRF). Two things refuse that instead of a signature: the form's POST
// must come from a page of this console's own origin (crossOrigin: the
// browser's Sec-Fetch-Site, or its Origin where it sends no Sec-Fetch-Site),
// and where the cookies are Secure the cookie's name has the __Host-
// prefix, which a browser lets no other host, nor a plain-HTTP page, set.

// formCookieName is the name of the signed-out form cookie base: with the
// __Host- prefix where the cookies are Secure.
func (c *Console) formCookieName(base string) string {
	if c.cfg.Secure {
		return hostPrefix + base
	}
	return base
}

// formCookie is the signed-out form cookie base holding v for the page at
// path; a __Host- cookie must have Path=/, so a Secure one is sent to
// every page (it is HttpOnly, and names no one).
func (c *Console) formCookie(base, v, path string) *http.Cookie {
	if c.cfg.Secure {
		path = "/"
	}
	return c.cookie(c.formCookieName(base), v, path, 0)
}

// formValue is the browser's signed-out form cookie base, or an error
// where it sent none.
func (c *Console) formValue(r *http.Request, base string) (string, error) {
	ck, err := r.Cookie(c.formCookieName(base))
	if err != nil {
		return "", err
	}
	return ck.Value, nil
}

// newCrossOrigin is the check that a signed-out form's POST came from a
// page of this console: one of its own origin as the request names it
// (Host), or of its public address (publicURL, when given).
func newCrossOrigin(publicURL string) *http.CrossOriginProtection {
	p := http.NewCrossOriginProtection()
	if u, err := url.Parse(publicURL); err == nil && u.Scheme != "" && u.Host != "" {
		// A proxy in front may send this server another Host than the
		// public one the browser names as the form's Origin.
		_ = p.AddTrustedOrigin(u.Scheme + "://" + u.Host) // scheme and host only: nothing it refuses
	}
	return p
}
