package storetest

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RunTokens runs the API token contract (`ql tokens`, and a server
// authenticating a request) against an adapter.
func RunTokens(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"ATokenIsStoredAsItsDigestAndFoundByIt":                        testTokenRoundTrip,
		"AnActiveNameIsUniqueUntilRevoked":                             testTokenNameUnique,
		"RevokingKeepsTheRowAndRefusesAMissingName":                    testTokenRevoke,
		"LastUseOnlyMovesForwardAndIsListed":                           testTokenTouch,
		"ExpiryIsSetFromTheStoreClockAndListedAsExpired":               testTokenExpiry,
		"AnExpiredTokensNameIsTakenUntilRevokedAndSaidSo":              testExpiredTokenHoldsItsName,
		"ARevokeOfANameNoTokenHasIsTokenNotFoundNotAMissingCredential": testRevokeOfNoTokenIsNotFound,
		"ATokensProjectsAreStoredAndListed":                            testTokenProjectsAreStoredAndListed,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

func createToken(t *testing.T, f Fixture, name string, scope apitoken.Scope, expires time.Duration) (string, apitoken.Token) {
	t.Helper()
	secret, tok, err := apitoken.Create(t.Context(), f.Tokens, "tester", ids.New(), name, scope, expires)
	if err != nil {
		t.Fatalf("create token %s: %v", name, err)
	}
	return secret, tok
}

func testTokenRoundTrip(t *testing.T, f Fixture) {
	secret, created := createToken(t, f, "ci", apitoken.Operate, 0)
	if !apitoken.LooksLikeToken(secret) || created.ExpiresAtMs != nil || created.CreatedAtMs <= 0 {
		t.Fatalf("created %q %+v", secret, created)
	}
	got, err := f.Auth.TokenByDigest(t.Context(), apitoken.Digest(secret))
	if err != nil || got.ID != created.ID || got.Name != "ci" || got.Scope != apitoken.Operate || got.CreatedAtMs != created.CreatedAtMs || got.LastUsedAtMs != nil {
		t.Fatalf("by digest: %+v %v; want %+v", got, err, created)
	}
	other, _, err := apitoken.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Auth.TokenByDigest(t.Context(), apitoken.Digest(other))
	requireCode(t, err, qlerror.NotFound, "an unknown token")
	if bytes.Equal(apitoken.Digest(secret), []byte(secret)) {
		t.Fatal("the digest is the secret")
	}
}

func testTokenNameUnique(t *testing.T, f Fixture) {
	createToken(t, f, "deploy", apitoken.Read, 0)
	_, _, err := apitoken.Create(t.Context(), f.Tokens, "tester", ids.New(), "deploy", apitoken.Admin, 0)
	requireCode(t, err, qlerror.Conflict, "a second active token of one name")
	if err := f.Tokens.TokenRevoke(t.Context(), "deploy", "tester"); err != nil {
		t.Fatal(err)
	}
	secret, _ := createToken(t, f, "deploy", apitoken.Admin, 0)
	got, err := f.Auth.TokenByDigest(t.Context(), apitoken.Digest(secret))
	if err != nil || got.Scope != apitoken.Admin || got.RevokedAtMs != nil {
		t.Fatalf("the new token of a reused name: %+v %v", got, err)
	}
	_, _, err = apitoken.Create(t.Context(), f.Tokens, "tester", ids.New(), "Not A Name", apitoken.Read, 0)
	requireCode(t, err, qlerror.Invalid, "a malformed name")
}

func testTokenRevoke(t *testing.T, f Fixture) {
	secret, _ := createToken(t, f, "old", apitoken.Read, 0)
	if err := f.Tokens.TokenRevoke(t.Context(), "old", "tester"); err != nil {
		t.Fatal(err)
	}
	got, err := f.Auth.TokenByDigest(t.Context(), apitoken.Digest(secret))
	if err != nil || got.RevokedAtMs == nil || got.StateAt(got.CreatedAtMs) != apitoken.StateRevoked {
		t.Fatalf("a revoked token: %+v %v", got, err)
	}
	requireCode(t, f.Tokens.TokenRevoke(t.Context(), "old", "tester"), qlerror.NotFound, "revoking a revoked token")
	requireCode(t, f.Tokens.TokenRevoke(t.Context(), "never", "tester"), qlerror.NotFound, "revoking a missing token")
	list, err := f.Tokens.TokenList(t.Context())
	if err != nil || len(list) != 1 || list[0].RevokedAtMs == nil {
		t.Fatalf("list after revoke: %+v %v", list, err)
	}
}

// testRevokeOfNoTokenIsNotFound: the reason of a revoke naming no
// unrevoked token is its own, never token_missing, the API's reason for
// a request that sent no token at all.
func testRevokeOfNoTokenIsNotFound(t *testing.T, f Fixture) {
	createToken(t, f, "gone", apitoken.Read, 0)
	if err := f.Tokens.TokenRevoke(t.Context(), "gone", "tester"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gone", "never"} {
		err := f.Tokens.TokenRevoke(t.Context(), name, "tester")
		if got := qlerror.ReasonOf(err); got != "token_not_found" || !qlerror.Is(err, qlerror.NotFound) {
			t.Errorf("revoking %q: reason %q, %v; want token_not_found, not_found", name, got, err)
		}
	}
}

func testTokenTouch(t *testing.T, f Fixture) {
	secret, tok := createToken(t, f, "used", apitoken.Read, 0)
	createToken(t, f, "idle", apitoken.Read, 0)
	for _, at := range []int64{tok.CreatedAtMs + 2000, tok.CreatedAtMs + 1000} {
		if err := f.Auth.TokenTouch(t.Context(), tok.ID, at); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.Auth.TokenByDigest(t.Context(), apitoken.Digest(secret))
	if err != nil || got.LastUsedAtMs == nil || *got.LastUsedAtMs != tok.CreatedAtMs+2000 {
		t.Fatalf("after touches at +2s then +1s: %+v %v; want last use +2s", got, err)
	}
	list, err := f.Tokens.TokenList(t.Context())
	if err != nil || len(list) != 2 || list[0].Name != "idle" || list[0].LastUsedAtMs != nil || list[1].Name != "used" || list[1].LastUsedAtMs == nil {
		t.Fatalf("list: %+v %v", list, err)
	}
}

func testTokenExpiry(t *testing.T, f Fixture) {
	secret, tok := createToken(t, f, "short", apitoken.Read, time.Hour)
	if tok.ExpiresAtMs == nil || *tok.ExpiresAtMs != tok.CreatedAtMs+time.Hour.Milliseconds() {
		t.Fatalf("created %+v: want expiry one hour after creation", tok)
	}
	got, err := f.Auth.TokenByDigest(t.Context(), apitoken.Digest(secret))
	if err != nil || got.ExpiresAtMs == nil || *got.ExpiresAtMs != *tok.ExpiresAtMs {
		t.Fatalf("by digest %+v %v", got, err)
	}
	if got.StateAt(*got.ExpiresAtMs-1) != apitoken.StateActive || got.StateAt(*got.ExpiresAtMs) != apitoken.StateExpired {
		t.Fatalf("state around the expiry of %+v", got)
	}
}

// testExpiredTokenHoldsItsName: an expired token holds its name until it
// is revoked (its row stays for the record), and the refusal of a create
// of that name says it expired, not that it is active; the revoke frees
// the name.
func testExpiredTokenHoldsItsName(t *testing.T, f Fixture) {
	createToken(t, f, "short", apitoken.Read, time.Minute)
	if err := f.Tamper.AgeTokens(t.Context(), "short", time.Hour.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	_, _, err := apitoken.Create(t.Context(), f.Tokens, "tester", ids.New(), "short", apitoken.Read, 0)
	requireCode(t, err, qlerror.Conflict, "a create of an expired token's name")
	if msg := err.Error(); !strings.Contains(msg, `token "short" expired at `) || !strings.Contains(msg, "ql tokens revoke short") || strings.Contains(msg, "active") {
		t.Fatalf("refusal of an expired token's name: %q; want it to say the token expired and how to free the name", msg)
	}
	if err := f.Tokens.TokenRevoke(t.Context(), "short", "tester"); err != nil {
		t.Fatalf("revoke of an expired token: %v", err)
	}
	createToken(t, f, "short", apitoken.Read, 0)
	list, err := f.Tokens.TokenList(t.Context())
	if err != nil || len(list) != 2 {
		t.Fatalf("list after the name's reuse: %+v %v; want the expired token's row kept beside the new one", list, err)
	}
	createToken(t, f, "live", apitoken.Read, time.Hour)
	_, _, err = apitoken.Create(t.Context(), f.Tokens, "tester", ids.New(), "live", apitoken.Read, 0)
	if err == nil || !strings.Contains(err.Error(), `an active token named "live" exists`) {
		t.Fatalf("refusal of an active token's name: %v", err)
	}
}
