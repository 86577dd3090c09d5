package httpapi

import (
	"net/http"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// A dependencies change whose Idempotency-Key another server on the
// database claimed and is still making is refused, 409
// idempotency_key_in_use, and starts nothing here; once that server
// records its Run, the change asked again answers it.
func TestAKeyAnotherServerIsMakingTheChangeOfIsRefusedInUseThenAnswersItsRun(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := sqlitetest.Open(t)
	secret, tok, err := apitoken.Create(ctx, st, "tester", ids.New(), "deps-admin", apitoken.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	// An empty service: a change that reached it would fail the test.
	h := NewHandler(Config{Tokens: st, Dependencies: &deps.Service{}, DependencyKeys: st, Ready: func() (bool, string) { return true, "" }})
	const route, key = "/api/v1/dependencies", "add-axios-1"
	digest, err := depsDigest(route, depsBody{Kind: "node", Packages: []string{"axios"}})
	if err != nil {
		t.Fatal(err)
	}
	owner := principal{tok: tok}.keyOwner()
	c, err := st.DependencyKeyClaim(ctx, deps.KeyAsk{Actor: owner, Key: key, Digest: digest, Kept: deps.KeyLifetime, Lease: deps.KeyLease})
	if err != nil || !c.Mine {
		t.Fatalf("the other server's claim: %+v (%v); want it claimed", c, err)
	}
	if status, id, reason := postKeyed(t, h, route, secret, key, `{"packages": ["axios"], "kind": "node"}`); status != http.StatusConflict ||
		reason != string(RefusalIdempotencyKeyInUse) || id != "" {
		t.Fatalf("the change while another server makes it: %d %q, Run %q; want 409 %s", status, reason, id, RefusalIdempotencyKeyInUse)
	}
	if err := st.DependencyKeyDone(ctx, owner, key, "run-of-the-other"); err != nil {
		t.Fatal(err)
	}
	if status, id, reason := postKeyed(t, h, route, secret, key, `{"kind": "node", "packages": ["axios"]}`); status != http.StatusOK || id != "run-of-the-other" {
		t.Fatalf("the change once the other server made it: %d %q, Run %q; want its Run", status, reason, id)
	}
}
