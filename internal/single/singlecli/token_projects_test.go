package singlecli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// `tokens create --project` binds a token to those projects, and `tokens
// list` shows them, in text and in JSON, beside a token of every project.
func TestATokensProjectsAreShownByTokensList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	applyDefs(t, dir, quietFile)
	code, _, errOut := ql(t, "tokens", "create", "alpha-ci", "--scope", "operate", "--project", "alpha", "--project", "bravo", "--data-dir", dir)
	if code != 0 || !strings.Contains(errOut, "projects alpha,bravo") {
		t.Fatalf("tokens create --project: %d %q", code, errOut)
	}
	newToken(t, dir, "ops", "operate")
	code, out, errOut := ql(t, "tokens", "list", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "PROJECTS") || !strings.Contains(out, "alpha,bravo") || !strings.Contains(out, "every project") {
		t.Fatalf("tokens list: %d %q %q; want each token's projects", code, out, errOut)
	}
	code, out, errOut = ql(t, "tokens", "list", "-o", "json", "--data-dir", dir)
	var listed struct {
		Tokens []cli.TokenView `json:"tokens"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &listed) != nil || len(listed.Tokens) != 2 {
		t.Fatalf("tokens list -o json: %d %q %q", code, out, errOut)
	}
	if got := listed.Tokens[0]; got.Name != "alpha-ci" || !slices.Equal(got.Projects, []string{"alpha", "bravo"}) {
		t.Errorf("alpha-ci listed %+v; want projects alpha, bravo", got)
	}
	if !strings.Contains(out, `"projects": []`) {
		t.Errorf("a token of every project is not listed with projects []: %s", out)
	}
	code, _, errOut = ql(t, "tokens", "create", "bad", "--scope", "read", "--project", "Not A Name", "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, "project: \"Not A Name\"") {
		t.Errorf("tokens create --project with a malformed name: %d %q; want exit 2 naming it", code, errOut)
	}
}
