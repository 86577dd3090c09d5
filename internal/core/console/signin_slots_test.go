package console

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// countedUsers counts the user lookups of a real store.
type countedUsers struct {
	*sqlitestore.Store
	lookups atomic.Int32
}

func (u *countedUsers) UserCredentials(ctx context.Context, name string) (account.User, string, error) {
	u.lookups.Add(1)
	return u.Store.UserCredentials(ctx, name)
}

// storeWithBob is a real migrated store holding the user bob, whose
// lookups are counted. The sign-in tests replace the password check, so
// bob's hash is a placeholder that spares hashing.
func storeWithBob(t *testing.T) *countedUsers {
	t.Helper()
	st := sqlitetest.Open(t)
	if _, err := st.UserCreate(t.Context(), account.NewUser{ID: ids.New(), Name: "bob", Role: account.Viewer, Hash: "$argon2id$placeholder"}); err != nil {
		t.Fatal(err)
	}
	return &countedUsers{Store: st}
}

// wrongSignin posts a sign-in of name with a wrong password from addr.
func wrongSignin(c *Console, name, addr string) *httptest.ResponseRecorder {
	return postSignin(c, url.Values{"user": {name}, "password": {"a wrong password"}}, addr)
}

// postSignin posts the sign-in form with fields from addr, with a
// matching sign-in cookie and form token, and returns the answer.
func postSignin(c *Console, fields url.Values, addr string) *httptest.ResponseRecorder {
	form := url.Values{"csrf": {"a-browsers-value"}}
	for k, v := range fields {
		form[k] = v
	}
	r := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = addr + ":4000"
	r.AddCookie(&http.Cookie{Name: c.formCookieName(signinCookie), Value: "a-browsers-value"})
	w := httptest.NewRecorder()
	c.ServeHTTP(w, r)
	return w
}

// With room for N password checks, N+k sign-ins at once never check more
// than N passwords together; the k that find no slot within the wait are
// refused with 503 and the busy message before their name is looked up,
// known and unknown names alike, and are counted.
func TestAtMostNPasswordChecksRunAtOnceAndTheOverflowIsRefused(t *testing.T) {
	const n, k = 2, 3
	users := storeWithBob(t)
	c := New(Config{Users: users})
	// The overflow's wait is short: the N holders keep their slots until
	// every refusal has been answered, so no refusal depends on timing.
	c.slots = newCheckSlots(n, 10*time.Millisecond)
	var running, most atomic.Int32
	entered, release := make(chan struct{}, n+k), make(chan struct{})
	c.verify = func(string, string, bool) bool {
		now := running.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		entered <- struct{}{}
		<-release
		running.Add(-1)
		return false
	}

	answers := make(chan *httptest.ResponseRecorder, n+k)
	var wg sync.WaitGroup
	for i := range n + k {
		name := "bob"
		if i%2 == 1 {
			name = "nobody"
		}
		wg.Go(func() { answers <- wrongSignin(c, name, fmt.Sprintf("198.51.100.%d", i)) })
	}
	for range n {
		<-entered
	}
	for range k {
		w := <-answers
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "Too many sign-ins at once") {
			t.Errorf("an overflowing sign-in: %d (Retry-After %q), want 503 with the busy message:\n%s", w.Code, w.Header().Get("Retry-After"), w.Body)
		}
	}
	close(release)
	wg.Wait()
	close(answers)
	for w := range answers {
		if w.Code != http.StatusUnauthorized {
			t.Errorf("a checked sign-in: %d, want 401", w.Code)
		}
	}
	if m, l := most.Load(), users.lookups.Load(); m != n || l != n {
		t.Errorf("%d checks ran at once and %d names were looked up, want %d and %d", m, l, n, n)
	}
	if failures, _, busy := c.AuthStats(); failures != n || busy != k {
		t.Errorf("counted %d failures and %d busy refusals, want %d and %d", failures, busy, n, k)
	}
}

// The bound follows the cores up to two, and is never zero.
func TestPasswordChecksAreBoundedByTheCoresUpToTwo(t *testing.T) {
	for procs, want := range map[int]int{1: 1, 2: 2, 8: 2} {
		if got := signinChecksFor(procs); got != want {
			t.Errorf("with %d cores: %d checks at once, want %d", procs, got, want)
		}
	}
}
