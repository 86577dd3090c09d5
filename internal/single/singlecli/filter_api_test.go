package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// Over --api-url as on the database, a project applied with tasks alone
// exists: listing its runs, triggers or notifications with a read token
// prints an empty list and exits 0, where a name no project has is still
// an error naming it. It sets $QL_TOKEN, so it does not run in parallel.
func TestAListingOfAProjectWithNoTriggerYetIsEmptyOverTheAPITooNotAnError(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, projectFile("later")+"  []\n")
	reader := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", reader)
	for _, cmd := range [][]string{{"runs", "list"}, {"triggers", "list"}, {"notifications", "list"}} {
		got := overAPI(t, base, append(cmd, "--project", "later", "-o", "json")...)
		var page map[string]json.RawMessage
		if got.code != 0 || got.err != "" || json.Unmarshal([]byte(got.out), &page) != nil {
			t.Errorf("%v --project later over the API: exit %d %q %q; want an empty list, exit 0", cmd, got.code, got.out, got.err)
		}
		for key, items := range page {
			if strings.HasPrefix(string(items), "[") && string(items) != "[]" {
				t.Errorf("%v --project later over the API lists %s %s; want none", cmd, key, items)
			}
		}
		got = overAPI(t, base, append(cmd, "--project", "never")...)
		if got.code != 1 || !strings.Contains(got.err, `project "never" does not exist; the only project is later`) {
			t.Errorf("%v --project never over the API: exit %d %q; want exit 1 saying it does not exist, naming the project there is", cmd, got.code, got.err)
		}
	}
}
