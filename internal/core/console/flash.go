package console

import (
	"bytes"
	"cmp"
	"compress/flate"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// A form that succeeds answers 303 See Other to a page (Post/Redirect/
// Get), so that the browser's history holds that page, not the POST: Back
// and reload never send the form again nor ask whether to. What the POST
// did is a flash, under a random key the redirect's address names
// (?flash=KEY), taken, once, by the first GET that names it.
//
// The flash rides to that GET in the browser: a cookie named with the key,
// holding the flash sealed (AES-GCM) under a key derived from the
// session's cookie token (sessionKey), the flash's key bound in the seal.
// Whichever replica the GET reaches, and the server started again between
// the form and its page, opens it from the cookie alone; nothing of it is
// stored. Another session cannot open it (its token derives another key),
// the page that takes it clears the cookie, so a reload or another tab
// finds nothing, and one never taken is not shown after flashTTL, sealed
// inside, its cookie cleared by the session's next request. A result page
// carries only what it shows (a backfill its counts and first Runs), and
// one that can list less (an apply's changes) is cut to what fits, with
// counts of what it leaves out (carriedPage.fit). A page whose data has no
// cookie encoding here (carriedPages), or is still too large for a cookie
// (maxFlashCookie), is held in the serving process's memory instead, in
// the session (flashBox): the redirect reaching another replica, or a
// restart, shows the page without it. A page that must reach the browser
// whole, a definitions preview whose confirm sends its file back, is the
// form's own answer instead when it is too large (redirectOrShow).

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

// flashBox is a session's flashes held in memory (those no cookie
// carries) by key, oldest first.
type flashBox struct {
	mu   sync.Mutex
	keys []string
	byID map[string]flash
}

// put holds f under key.
func (b *flashBox) put(key string, f flash) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byID == nil {
		b.byID = map[string]flash{}
	}
	for len(b.keys) >= maxFlashes {
		delete(b.byID, b.keys[0])
		b.keys = b.keys[1:]
	}
	b.byID[key] = f
	b.keys = append(b.keys, key)
}

// take removes and returns the flash of key, unless it has expired; every
// expired flash goes with it, so that a result never shown is not kept in
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
	if c.redirectCarried(w, r, s, to, f) {
		return
	}
	key := randomID()
	f.expiresMs = c.cfg.NowMs() + flashTTL.Milliseconds()
	s.flashes.put(key, f)
	redirectToFlash(w, r, to, key)
}

// redirectOrShow answers a form whose result page must reach the browser
// whole, whichever replica serves it: as redirectWith when it fits in a
// cookie, else with the page itself, held nowhere (reloaded, the browser
// asks to send the form again).
func (c *Console) redirectOrShow(w http.ResponseWriter, r *http.Request, s *session, to string, f flash) {
	if c.redirectCarried(w, r, s, to, f) {
		return
	}
	c.render(w, r, http.StatusOK, f.Page, s, c.completed(r, f).Data)
}

// redirectCarried answers 303 to the page at to with f in a cookie; false,
// having answered nothing, when f does not go in one.
func (c *Console) redirectCarried(w http.ResponseWriter, r *http.Request, s *session, to string, f flash) bool {
	now := c.cfg.NowMs()
	key := randomID()
	f.expiresMs = now + flashTTL.Milliseconds()
	v, ok := sealFlash(s.id, key, f)
	if !ok {
		return false
	}
	name := c.flashCookieName(key)
	c.makeFlashRoom(w, r, s, now, len(name)+len(v))
	http.SetCookie(w, c.cookie(name, v, "/", 0))
	redirectToFlash(w, r, to, key)
	return true
}

// redirectToFlash answers 303 to the page at to naming the flash of key.
func redirectToFlash(w http.ResponseWriter, r *http.Request, to, key string) {
	q := url.Values{flashParam: {key}}
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

// takeFlash takes the flash a GET names, from its cookie or from s (on
// every request of a session, so that the expired ones go). A whole
// result page is rendered here (shown reports it); a message or a secret
// rides in the returned request's context for the page (flashOf).
func (c *Console) takeFlash(w http.ResponseWriter, r *http.Request, s *session) (_ *http.Request, shown bool) {
	key := ""
	if r.Method == http.MethodGet {
		key = r.URL.Query().Get(flashParam)
	}
	now := c.cfg.NowMs()
	// Taken with no key too: that drops the expired ones.
	f, ok := s.flashes.take(key, now)
	if carried, found := c.takeCarried(w, r, s, key, now); found {
		f, ok = carried, true
	}
	if !ok {
		return r, false
	}
	if f.Page != "" {
		c.render(w, r, http.StatusOK, f.Page, s, c.completed(r, f).Data)
		return r, true
	}
	return r.WithContext(context.WithValue(r.Context(), flashKey{}, &f)), false
}

// completed is f with what its page shows that no flash holds (read again
// for the request: the project choices of a definitions page) filled in.
func (c *Console) completed(r *http.Request, f flash) flash {
	if p, ok := carriedPages[f.Page]; ok && p.complete != nil && reflect.TypeOf(f.Data) == p.typ {
		f.Data = p.complete(c, r, f.Data)
	}
	return f
}

// flashOf is the flash the request's page shows, nil when none.
func flashOf(r *http.Request) *flash {
	f, _ := r.Context().Value(flashKey{}).(*flash)
	return f
}

// flashCookie begins the name of each flash cookie, the flash's key its
// rest.
const flashCookie = "ql_flash_"

// maxFlashCookie bounds a flash cookie's value: with its name and
// attributes it stays well under the 4 KB a browser keeps of one cookie,
// and the few a session has in flight at once stay within what a proxy
// in front takes of a request's headers.
const maxFlashCookie = 3000

// maxFlashCookies bounds the names and values of a session's flash cookies
// in flight together. A browser sends them all with every request, and a
// proxy in front refuses a request whose Cookie header passes its limit
// (8 KB a line in nginx by default) before this server could clear any:
// the session would be locked out until its browser closed. Flashes left
// unread (pages not followed) are the only way to gather several.
const maxFlashCookies = 6000

// flashCookieName is the name of the cookie carrying the flash of key:
// with the __Host- prefix where the cookies are Secure, so no other host
// of the domain can set one (it could not be opened, but would be sent
// along with every request).
func (c *Console) flashCookieName(key string) string {
	return c.formCookieName(flashCookie + key)
}

// carriedFlash is a flash cookie the request sent: its name, and the
// flash when it opened under the session's key.
type carriedFlash struct {
	name, key string
	size      int
	f         flash
	opened    bool
}

// carriedFlashes are the flash cookies the request sent.
func (c *Console) carriedFlashes(r *http.Request, s *session) []carriedFlash {
	prefix := c.flashCookieName("")
	var out []carriedFlash
	for _, ck := range r.Cookies() {
		key, ok := strings.CutPrefix(ck.Name, prefix)
		if !ok {
			continue
		}
		f, opened := openFlash(s.id, key, ck.Value)
		out = append(out, carriedFlash{name: ck.Name, key: key, size: len(ck.Name) + len(ck.Value), f: f, opened: opened})
	}
	return out
}

// takeCarried returns the flash of key the request's cookie carries,
// unless it has expired, and clears its cookie; every flash cookie that
// has expired, or that this session cannot open (a session signed out
// since made it), is cleared with it.
func (c *Console) takeCarried(w http.ResponseWriter, r *http.Request, s *session, key string, nowMs int64) (flash, bool) {
	var taken flash
	found := false
	for _, cf := range c.carriedFlashes(r, s) {
		live := cf.opened && cf.f.expiresMs > nowMs
		if key != "" && cf.key == key {
			taken, found = cf.f, live
		} else if live {
			continue
		}
		http.SetCookie(w, c.cookie(cf.name, "", "/", -1))
	}
	return taken, found
}

// makeFlashRoom clears the oldest of the session's flash cookies in flight
// until a new one of adding bytes (name and value) keeps them within
// maxFlashes and maxFlashCookies.
func (c *Console) makeFlashRoom(w http.ResponseWriter, r *http.Request, s *session, nowMs int64, adding int) {
	var live []carriedFlash
	total := adding
	for _, cf := range c.carriedFlashes(r, s) {
		if cf.opened && cf.f.expiresMs > nowMs {
			live = append(live, cf)
			total += cf.size
		}
	}
	slices.SortFunc(live, func(a, b carriedFlash) int { return cmp.Compare(a.f.expiresMs, b.f.expiresMs) })
	for len(live) > 0 && (len(live) >= maxFlashes || total > maxFlashCookies) {
		http.SetCookie(w, c.cookie(live[0].name, "", "/", -1))
		total -= live[0].size
		live = live[1:]
	}
}

// carriedPage is how a whole result page's data goes into a flash cookie
// and comes out of one: JSON of its one type. fit, when set, is the data
// cut to what fits (fits tells), for data too large whole; complete, when
// set, fills in on the page's GET what the data leaves to be read again.
type carriedPage struct {
	typ      reflect.Type
	decode   func([]byte) (any, error)
	fit      func(v any, fits func(any) bool) any
	complete func(c *Console, r *http.Request, v any) any
}

func carriedAs[T any]() carriedPage {
	return carriedWith[T](nil, nil)
}

func carriedWith[T any](fit func(v T, fits func(T) bool) T, complete func(c *Console, r *http.Request, v T) T) carriedPage {
	p := carriedPage{typ: reflect.TypeFor[T](), decode: func(b []byte) (any, error) {
		var v T
		err := json.Unmarshal(b, &v)
		return v, err
	}}
	if fit != nil {
		p.fit = func(v any, fits func(any) bool) any {
			return fit(v.(T), func(t T) bool { return fits(t) })
		}
	}
	if complete != nil {
		p.complete = func(c *Console, r *http.Request, v any) any { return complete(c, r, v.(T)) }
	}
	return p
}

// carriedPages are the result pages whose data a flash cookie carries:
// plain values, each in JSON. A batch's is whole; a backfill's holds its
// counts and the Runs it lists (backfillData); a definitions page's leaves
// out the project choices, read again on its GET, and an apply's its
// file, the editor showing the project as the apply left it
// (shownDefinitions), while a preview's holds the file its confirm sends.
var carriedPages = map[string]carriedPage{
	"batch":       carriedAs[batchData](),
	"backfill":    carriedAs[backfillData](),
	"definitions": carriedWith(fitApplied, (*Console).shownDefinitions),
}

// sealedFlash is a flash as its cookie holds it, sealed.
type sealedFlash struct {
	Page      string          `json:"p,omitempty"`
	Data      json.RawMessage `json:"d,omitempty"`
	Message   string          `json:"m,omitempty"`
	Secret    string          `json:"s,omitempty"`
	ExpiresMs int64           `json:"e"`
}

// The sealed text's first byte says how the rest is written.
const (
	sealedPlain    = 'j'
	sealedDeflated = 'z'
)

// maxOpenedFlash bounds what an opened flash inflates to.
const maxOpenedFlash = 1 << 20

// flashAEAD is the cipher of the flashes of the session whose cookie
// holds id.
func flashAEAD(id string) cipher.AEAD {
	// A 32-byte key and the standard nonce: neither call can fail.
	block, _ := aes.NewCipher(sessionKey(id, "qinglong console flash"))
	aead, _ := cipher.NewGCM(block)
	return aead
}

// sealFlash is the value of the cookie carrying f under key for the
// session whose cookie holds id; false when f does not go in a cookie
// (a page not carried, or too large even cut to fit).
func sealFlash(id, key string, f flash) (string, bool) {
	sf := sealedFlash{Page: f.Page, Message: f.Message, Secret: f.Secret, ExpiresMs: f.expiresMs}
	if f.Page == "" {
		v := sealText(id, key, sf)
		return v, v != "" && len(v) <= maxFlashCookie
	}
	p, ok := carriedPages[f.Page]
	if !ok || reflect.TypeOf(f.Data) != p.typ {
		return "", false
	}
	withData := func(data any) (string, bool) {
		b, err := json.Marshal(data)
		if err != nil {
			return "", false
		}
		sf.Data = b
		v := sealText(id, key, sf)
		return v, v != "" && len(v) <= maxFlashCookie
	}
	v, ok := withData(f.Data)
	if !ok && p.fit != nil {
		v, ok = withData(p.fit(f.Data, func(data any) bool {
			_, fits := withData(data)
			return fits
		}))
	}
	return v, ok
}

// sealText is sf sealed for the session whose cookie holds id under key,
// as a cookie's value; "" when it does not encode.
func sealText(id, key string, sf sealedFlash) string {
	b, err := json.Marshal(sf) //nolint:gosec // G117: sealed below, for its own session's cookie only
	if err != nil {
		return ""
	}
	text := append([]byte{sealedPlain}, b...)
	// A result page's outcomes repeat their words, and deflated most
	// batches fit. A token's secret is never compressed: what an observer
	// may learn from a compressed length must not depend on it.
	if sf.Secret == "" {
		var z bytes.Buffer
		z.WriteByte(sealedDeflated)
		zw, _ := flate.NewWriter(&z, flate.BestCompression) // a valid level: no error
		_, _ = zw.Write(b)                                  // a bytes.Buffer takes every write
		_ = zw.Close()
		text = z.Bytes()
	}
	aead := flashAEAD(id)
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(text)+aead.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, text, []byte(key)))
}

// openFlash is the flash of key sealed in v for the session whose cookie
// holds id; false when it does not open (another session's, another key's,
// altered) or its page's data does not decode.
func openFlash(id, key, v string) (flash, bool) {
	aead := flashAEAD(id)
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil || len(raw) < aead.NonceSize() {
		return flash{}, false
	}
	text, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(key))
	if err != nil || len(text) == 0 {
		return flash{}, false
	}
	b := text[1:]
	switch text[0] {
	case sealedPlain:
	case sealedDeflated:
		if b, err = io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(b)), maxOpenedFlash)); err != nil {
			return flash{}, false
		}
	default:
		return flash{}, false
	}
	var sf sealedFlash
	if json.Unmarshal(b, &sf) != nil {
		return flash{}, false
	}
	f := flash{Page: sf.Page, Message: sf.Message, Secret: sf.Secret, expiresMs: sf.ExpiresMs}
	if f.Page != "" {
		p, ok := carriedPages[f.Page]
		if !ok {
			return flash{}, false
		}
		if f.Data, err = p.decode(sf.Data); err != nil {
			return flash{}, false
		}
	}
	return f, true
}
