package singlecli

import (
	"encoding/json"
	"slices"
	"strings"
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

// `triggers list --search jd_bean_sign.js` finds the trigger whose task
// runs that script, though no name holds it, and its FOUND IN column
// (-o json: foundIn) says it was found in the script, on the database and
// over --api-url alike. It sets $QL_TOKEN, so it does not run in parallel.
func TestTriggersListSearchFindsATaskByItsScriptAndSaysWhereOnTheDatabaseAndOverTheAPI(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, `project: jd
tasks:
  - {name: bean, script: 'node /ql/scripts/jd_bean_sign.js'}
  - {name: other, script: 'echo hi'}
triggers:
  - {name: sign, task: bean, cron: "7 * * * *", timezone: UTC}
  - {name: quiet, task: other, cron: "7 * * * *", timezone: UTC}
`)
	t.Setenv("QL_TOKEN", newToken(t, dir, "reader", "read"))
	base := serveAPI(t, dir, "standalone")
	for where, run := range map[string]func(args ...string) outcome{
		"database": func(args ...string) outcome { return onDB(t, dir, args...) },
		"api":      func(args ...string) outcome { return overAPI(t, base, args...) },
	} {
		got := run("triggers", "list", "--search", "jd_bean_sign.js", "-o", "json")
		var page struct {
			Triggers []struct{ Name, FoundIn string }
		}
		if got.code != 0 || json.Unmarshal([]byte(got.out), &page) != nil {
			t.Fatalf("%s: exit %d %q %q", where, got.code, got.out, got.err)
		}
		if len(page.Triggers) != 1 || page.Triggers[0].Name != "sign" || page.Triggers[0].FoundIn != "script" {
			t.Errorf("%s: --search jd_bean_sign.js listed %+v; want sign, found in its script", where, page.Triggers)
		}
		table := run("triggers", "list", "--search", "jd_bean_sign.js")
		lines := strings.Split(strings.TrimSpace(table.out), "\n")
		if table.code != 0 || len(lines) != 2 || !strings.HasSuffix(strings.TrimSpace(lines[0]), "FOUND IN") || !strings.HasSuffix(strings.TrimSpace(lines[1]), "script") {
			t.Errorf("%s: the table of --search jd_bean_sign.js is %q; want one row ending in FOUND IN's script", where, table.out)
		}
	}
}
