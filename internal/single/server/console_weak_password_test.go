package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The console refuses a new password that is one of the most common, or
// that contains the user's name, on the account page and on the first
// owner's setup, saying why in English and in Chinese; a weak password
// set before the rule still signs in.
func TestTheConsoleRefusesWeakNewPasswordsInBothLanguages(t *testing.T) {
	t.Parallel()
	site, _ := startLoggedConsoleSite(t)
	c, csrf := site.signedInUser(t, ownerPassword)
	for pw, want := range map[string]string{
		"Password123!":         "one of the most common passwords",
		"qwertyuiop":           "one of the most common passwords",
		"P@55w0rd-2026":        "one of the most common passwords",
		"Olivia-likes-gardens": `contains the user name &#34;olivia&#34;`,
	} {
		if resp, body := site.changePassword(t, c, csrf, ownerPassword, pw, pw); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, want) || !strings.Contains(body, "choose") {
			t.Errorf("new password %q: %d, want 400 saying %q and what to do\n%s", pw, resp.StatusCode, want, body)
		}
	}
	httpcall.Form(t, c, http.MethodGet, site.base+"/account?lang=zh", nil)
	if resp, body := site.changePassword(t, c, csrf, ownerPassword, "qinglong2026", "qinglong2026"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "最常见的密码") {
		t.Errorf("a common new password in Chinese: %d\n%s", resp.StatusCode, body)
	}
	if resp, body := site.changePassword(t, c, csrf, ownerPassword, "i-am-olivia-2026", "i-am-olivia-2026"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "包含用户名“olivia”") {
		t.Errorf("a new password holding the name in Chinese: %d\n%s", resp.StatusCode, body)
	}
	if st, _, _ := site.signInUser(t, consoleClient(t), site.owner, ownerPassword); st != http.StatusSeeOther {
		t.Fatalf("a refused change changed the password: the old one signs in with %d", st)
	}

	hash, err := account.HashPassword("password123")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := site.srv.store.UserCreate(t.Context(), account.NewUser{ID: ids.New(), Name: "walt", Role: account.Viewer, Hash: hash}); err != nil {
		t.Fatal(err)
	}
	if st, loc, msg := site.signInUser(t, consoleClient(t), "walt", "password123"); st != http.StatusSeeOther {
		t.Fatalf("a weak password set before the rule: %d to %q (%q), want it to sign in", st, loc, msg)
	}

	setup := startSetupSite(t)
	sc := consoleClient(t)
	form := setup.setupForm(t, sc)
	resp, body := httpcall.Form(t, sc, http.MethodPost, setup.base+"/setup", map[string][]string{"csrf": {form}, "user": {"lead"}, "password": {"L3tm3in2026"}, "password2": {"L3tm3in2026"}, "code": {setup.code(t)}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "one of the most common passwords") {
		t.Fatalf("setup with a common password: %d\n%s", resp.StatusCode, body)
	}
	if resp, body := setup.postSetup(t, sc, form, "lead", setup.code(t)); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("setup with a good password after the refusal: %d, want the code unspent\n%s", resp.StatusCode, body)
	}
}
