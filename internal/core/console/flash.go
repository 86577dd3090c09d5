package console

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// A form that succeeds answers 303 See Other to a page (Post/Redirect/
// Get), so that the browser's history holds that page, not the POST: Back
// and reload never send the form again nor ask whether to. What the POST
// did is a flash: held in the session that sent the form, under a random
// key the redirect's address names (?flash=KEY), and taken, once, by the
// first GET that names it. Another session cannot read it (its key is
// looked up in the requesting session only), a reload finds it gone, and
// one never taken is forgotten after flashTTL.

// flashParam is the query parameter naming a flash.
const flashParam = "flash"

// flashTTL is how long a flash waits for its page: the redirect follows
// at once, so this only bounds what a browser that never followed it
// leaves behind (a new token's secret among them).
const flashTTL = 5 * time.Minute

// maxFlashes bounds one session's flashes: past it, a new one forgets the
// oldest, so a session posting forms and never reading the pages holds
// little.
const maxFlashes = 8

// flash is what one form did, for the page its redirect shows: Page and
// Data a whole result page rendered in place of the address's own (a
// batch's outcomes, an apply's changes), Message a line above the page's
// own content, Secret a token's secret for the tokens page.
type flash struct {
	Page      string
	Data      any
	Message   string
	Secret    string
	expiresMs int64
}

// flashBox is a session's flashes by key, oldest first.
type flashBox struct {
	mu   sync.Mutex
	keys []string
	byID map[string]flash
}

// put holds f under a new key and returns the key.
func (b *flashBox) put(f flash, nowMs int64) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byID == nil {
		b.byID = map[string]flash{}
	}
	for len(b.keys) >= maxFlashes {
		delete(b.byID, b.keys[0])
		b.keys = b.keys[1:]
	}
	key := randomID()
	f.expiresMs = nowMs + flashTTL.Milliseconds()
	b.byID[key] = f
	b.keys = append(b.keys, key)
	return key
}

// take removes and returns the flash of key, unless it has expired; every
// expired flash goes with it, so that a secret never shown is not kept in
// memory past flashTTL by a session that goes on browsing.
func (b *flashBox) take(key string, nowMs int64) (flash, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.keys) > 0 && b.byID[b.keys[0]].expiresMs <= nowMs {
		delete(b.byID, b.keys[0])
		b.keys = b.keys[1:]
	}
	f, ok := b.byID[key]
	if !ok {
		return flash{}, false
	}
	delete(b.byID, key)
	for i, k := range b.keys {
		if k == key {
			b.keys = append(b.keys[:i], b.keys[i+1:]...)
			break
		}
	}
	return f, f.expiresMs > nowMs
}

// redirectWith answers a form that succeeded: 303 to the page at to,
// which shows f once.
func (c *Console) redirectWith(w http.ResponseWriter, r *http.Request, s *session, to string, f flash) {
	q := url.Values{flashParam: {s.flashes.put(f, c.cfg.NowMs())}}
	// A language or zone the form's address asked for stays the page's.
	for _, k := range []string{"lang", "tz"} {
		if v := r.URL.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	sep := "?"
	if strings.Contains(to, "?") {
		sep = "&"
	}
	http.Redirect(w, r, to+sep+q.Encode(), http.StatusSeeOther)
}

type flashKey struct{}

// takeFlash takes the flash a GET names from s (on every request of a
// session, so that the expired ones go). A whole result page is
// rendered here (shown reports it); a message or a secret rides in the
// returned request's context for the page (flashOf).
func (c *Console) takeFlash(w http.ResponseWriter, r *http.Request, s *session) (_ *http.Request, shown bool) {
	key := ""
	if r.Method == http.MethodGet {
		key = r.URL.Query().Get(flashParam)
	}
	// Taken with no key too: that drops the expired ones.
	f, ok := s.flashes.take(key, c.cfg.NowMs())
	if !ok {
		return r, false
	}
	if f.Page != "" {
		c.render(w, r, http.StatusOK, f.Page, s, f.Data)
		return r, true
	}
	return r.WithContext(context.WithValue(r.Context(), flashKey{}, &f)), false
}

// flashOf is the flash the request's page shows, nil when none.
func flashOf(r *http.Request) *flash {
	f, _ := r.Context().Value(flashKey{}).(*flash)
	return f
}
