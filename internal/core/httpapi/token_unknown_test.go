package httpapi

import (
	"strings"
	"testing"
)

// A token nobody holds in this server's database is most often one made
// by another installation (a standalone one moved to the cluster) or
// after the backup a database was restored from: the refusal says tokens
// belong to the database that created them, not only that it is unknown.
func TestAnUnknownTokenIsSaidToBelongToTheDatabaseThatCreatedIt(t *testing.T) {
	t.Parallel()
	h, tok := reasonsServer(t, Limits{FailedAuthBurst: 1000}, true)
	status, a, _ := ask(t, h, refusal{name: "an unknown token", method: "GET", target: "/api/v1/runs", token: tok["unknown"]})
	if status != 401 || a.Error.Reason != RefusalTokenUnknown || !strings.Contains(a.Error.Message, "belongs to the database that created it") {
		t.Fatalf("an unknown token: %d %+v; want 401 token_unknown saying a token belongs to the database that created it", status, a.Error)
	}
}
