package singlecli

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// `ql export --api-url` prints the bytes, and the notes, `ql export` prints
// from the database; it needs an admin token, as the console's definitions
// page, and an unknown project is the server's refusal, exit 1. Not
// parallel: it sets $QL_TOKEN.
func TestExportOverTheAPIPrintsTheDatabasesBytes(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, storetest.EveryField)
	applyDefs(t, dir, strings.Replace(storetest.EveryField, "project: rich\n", "project: rich\nstatus: archived\n", 1))
	admin, operator := newToken(t, dir, "admin", "admin"), newToken(t, dir, "op", "operate")
	code, local, localErr := ql(t, "export", "rich", "--data-dir", dir)
	if code != 0 || localErr == "" {
		t.Fatalf("export from the database: exit %d %q", code, localErr)
	}
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	code, remote, remoteErr := ql(t, "export", "rich", "--api-url", base)
	if code != 0 || remote != local || remoteErr != localErr {
		t.Fatalf("export --api-url: exit %d\n%s%s---\nwant the database's\n%s%s", code, remote, remoteErr, local, localErr)
	}
	if code, _, errOut := ql(t, "export", "nope", "--api-url", base); code != 1 || !strings.Contains(errOut, `server: project "nope" does not exist; the only project is rich`) {
		t.Fatalf("export nope --api-url: exit %d %q; want exit 1 naming rich", code, errOut)
	}
	t.Setenv("QL_TOKEN", operator)
	if code, _, errOut := ql(t, "export", "rich", "--api-url", base); code != 5 || !strings.Contains(errOut, "needs a token of scope admin") {
		t.Fatalf("export --api-url with an operate token: exit %d %q; want exit 5, not allowed", code, errOut)
	}
	t.Setenv("QL_TOKEN", "")
	if code, _, errOut := ql(t, "export", "rich", "--api-url", base); code != 2 || !strings.Contains(errOut, "--scope admin") {
		t.Fatalf("export --api-url without a token: exit %d %q; want exit 2 naming the scope to create", code, errOut)
	}
}
