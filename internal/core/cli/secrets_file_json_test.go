package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A secrets file to fix (others may read it, it is not JSON) exits 2, and
// its -o json error line says the code exit 2 means, invalid, never the
// failed_precondition that means exit 4 everywhere else, with a reason of
// its own per problem and the file's path.
func TestASecretsFileToFixSaysInvalidInTheJSONErrorLineAsItsExitCodeDoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open := filepath.Join(dir, "open.json")
	if err := os.WriteFile(open, []byte(`{"a": "bbbb"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"a": `), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, reason string }{{open, "secrets_file_mode"}, {broken, "secrets_file_not_json"}} {
		var out, errOut bytes.Buffer
		code := MainIn(context.Background(), Options{Binary: "ql"}, []string{"secrets", "list", "-o", "json", "--secrets-file", c.path}, strings.NewReader(""), &out, &errOut)
		lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
		var got struct {
			Error struct {
				Code   string            `json:"code"`
				Reason string            `json:"reason"`
				Params map[string]string `json:"params"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil || code != ExitUsage {
			t.Fatalf("%s: exit %d, stderr %q (%v); want exit 2 and a JSON error line", c.path, code, errOut.String(), err)
		}
		if e := got.Error; e.Code != "invalid" || e.Reason != c.reason || e.Params["path"] != c.path {
			t.Errorf("%s: %+v; want invalid, reason %s, its path", c.path, e, c.reason)
		}
	}
}
