package singlecli

import (
	"encoding/json"
	"slices"
	"testing"
)

// `triggers list --search` lists the matches alone, a page of them, on
// the database and over --api-url alike. It sets $QL_TOKEN, so it does
// not run in parallel.
func TestTriggersListSearchListsOnlyTheMatchesOnTheDatabaseAndOverTheAPI(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, projectFile("shop", "quiet-a", "match-1", "quiet-b", "quiet-c", "match-2"))
	t.Setenv("QL_TOKEN", newToken(t, dir, "reader", "read"))
	base := serveAPI(t, dir, "standalone")
	args := []string{"triggers", "list", "--search", "MATCH", "--limit", "2", "-o", "json"}
	for where, got := range map[string]outcome{"database": onDB(t, dir, args...), "api": overAPI(t, base, args...)} {
		var page struct {
			Triggers []struct{ Name string }
			Next     string
		}
		if got.code != 0 || json.Unmarshal([]byte(got.out), &page) != nil {
			t.Fatalf("%s: exit %d %q %q", where, got.code, got.out, got.err)
		}
		var names []string
		for _, tr := range page.Triggers {
			names = append(names, tr.Name)
		}
		if !slices.Equal(names, []string{"match-1", "match-2"}) || page.Next != "" {
			t.Errorf("%s: --search MATCH --limit 2 listed %v (next %q); want match-1 and match-2 on one page", where, names, page.Next)
		}
	}
}
