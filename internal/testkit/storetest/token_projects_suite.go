package storetest

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
)

// testTokenProjectsAreStoredAndListed: the projects a token is bound to
// come back, sorted without repeats, wherever the token is read (the
// server authenticating it, `ql tokens list`), and a token made without
// any stays a token of every project.
func testTokenProjectsAreStoredAndListed(t *testing.T, f Fixture) {
	secret, created, err := apitoken.Create(t.Context(), f.Tokens, "tester", ids.New(), "alpha-ci", apitoken.Operate, 0, "beta", "alpha", "beta")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha", "beta"}
	if !slices.Equal(created.Projects, want) {
		t.Fatalf("created with projects %q; want %q", created.Projects, want)
	}
	got, err := f.Auth.TokenByDigest(t.Context(), apitoken.Digest(secret))
	if err != nil || !slices.Equal(got.Projects, want) || !got.Covers("alpha") || got.Covers("charlie") {
		t.Fatalf("by digest: projects %q %v; want %q", got.Projects, err, want)
	}
	everySecret, _ := createToken(t, f, "ops", apitoken.Operate, 0)
	every, err := f.Auth.TokenByDigest(t.Context(), apitoken.Digest(everySecret))
	if err != nil || every.Bound() || every.Projects != nil || !every.Covers("charlie") {
		t.Fatalf("a token made without projects: %+v %v; want one of every project", every, err)
	}
	list, err := f.Tokens.TokenList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string][]string{}
	for _, tok := range list {
		listed[tok.Name] = tok.Projects
	}
	if !slices.Equal(listed["alpha-ci"], want) || listed["ops"] != nil {
		t.Fatalf("listed projects %q", listed)
	}
}
