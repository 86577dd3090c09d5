package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A --data-dir without a database is the user's mistake, as a trigger name
// no trigger has: a script reading `-o json`'s error line gets not_found
// and the reason, never "internal", which reads as QingLong's own failure.
func TestAMissingDatabaseIsRefusedAsNotFoundWithItsReasonInTheJSONErrorLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opener := func(context.Context, string) (*Backend, error) { return nil, errors.New("must not be called") }
	opts := Options{Binary: "ql", OpenSQLite: opener, OpenSQLiteReadOnly: opener}
	for _, args := range [][]string{{"runs", "list"}, {"triggers", "list"}, {"runs", "cancel", "0190c2b4-0000-7000-8000-000000000000"}} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), opts, append(args, "--data-dir", dir, "-o", "json"), &out, &errb)
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		var got errorJSON
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
			t.Fatalf("%v: the last line of stderr is no JSON error: %v\n%s", args, err, errb.String())
		}
		e := got.Error
		if code != ExitFailed || e.Code != "not_found" || e.Reason != RefusalNoDatabase || e.Params["db"] != filepath.Join(dir, DefaultDBFile) {
			t.Errorf("%v: exit %d, error %+v; want exit 1, not_found, reason %s naming the file", args, code, e, RefusalNoDatabase)
		}
	}
}
