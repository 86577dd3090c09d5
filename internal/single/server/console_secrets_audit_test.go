package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A secret set and deleted on the console's Secrets page is recorded in
// the audit trail with the session that did it and the secret's name,
// never its value.
func TestTheSecretsPageRecordsWhoSetAndDeletedASecretByName(t *testing.T) {
	t.Parallel()
	site := startSecretsSite(t, nil)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	for _, p := range []struct {
		path string
		form url.Values
	}{
		{"/secrets", url.Values{"name": {"shop/api_key"}, "value": {"console-v4lue-Qm3"}}},
		{"/secrets/delete", url.Values{"name": {"shop/api_key"}}},
	} {
		p.form.Set("csrf", csrf)
		if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+p.path, p.form); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s: %d\n%s", p.path, resp.StatusCode, page)
		}
	}
	page, err := site.srv.store.AuditList(t.Context(), audit.Query{Project: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range page.Records {
		if r.ObjectKind == audit.KindSecret {
			got = append(got, strings.Join([]string{string(r.Action), r.Actor, r.ObjectName, r.Note}, " "))
		}
	}
	want := []string{
		"secret.deleted console:token:console-admin@127.0.0.1 shop/api_key ",
		"secret.set console:token:console-admin@127.0.0.1 shop/api_key ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("trail %q; want %q", got, want)
	}
}
