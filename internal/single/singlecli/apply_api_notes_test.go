package singlecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// notesOf are the notes of an apply's answer.
func notesOf(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	raw, ok := body["notes"].([]any)
	if !ok {
		t.Fatalf("the answer has no notes list: %v", body)
	}
	out := make([]map[string]any, len(raw))
	for i, n := range raw {
		out[i] = n.(map[string]any)
	}
	return out
}

// An apply over the API answers the notes a local `ql apply` prints about
// the same file on the same single-node database (reason, items and the
// English sentence), its dry run included, and `ql apply --api-url`
// prints them on standard error byte for byte as the local apply does, but
// for the command that sets a secret, which each prints to paste: its own
// binary's, with the location flag it was given.
// Not parallel: it sets $QL_TOKEN.
func TestApplyOverTheAPINotesWhatALocalApplyNotesByteForByte(t *testing.T) {
	for _, profile := range []string{"standalone", "edge"} {
		t.Run(profile, func(t *testing.T) {
			dir := installedDir(t)
			admin := newToken(t, dir, "admin", "admin")
			base := serveAPI(t, dir, profile)
			file := writeFile(t, t.TempDir(), "notes.yaml", notesFile)
			// The same lines, but for the command that sets a secret:
			// the API names ql's, and each apply prints its own binary's
			// with its location flag.
			want := func(set string) string { return notePlacement + noteJitter + noteSecrets(set) }

			st, body := call(t, "POST", base+"/api/v1/apply?dryRun=true", admin, notesFile)
			notes := notesOf(t, body)
			if st != 200 || len(notes) != 3 {
				t.Fatalf("dry run: %d, %d notes %v; want 200 with three", st, len(notes), body["notes"])
			}
			reasons := []string{"defs_note_placement_ignored", "defs_note_jitter_past_period", "defs_note_secrets_missing"}
			for i, line := range []string{notePlacement, noteJitter, noteSecrets("ql secrets set NAME")} {
				if notes[i]["reason"] != reasons[i] || "note: "+notes[i]["message"].(string)+"\n" != line {
					t.Errorf("note %d: %v; want reason %s saying %q", i, notes[i], reasons[i], line)
				}
			}
			if items, _ := notes[1]["items"].([]any); notes[1]["more"] != 2.0 || len(items) != 3 ||
				items[0].(map[string]any)["name"] != "a" || items[0].(map[string]any)["jitter"] != "30s" || items[0].(map[string]any)["period"] != "10s" {
				t.Errorf("the jitter note's items %v, more %v; want a, b, c with their jitter and period, and 2 more", items, notes[1]["more"])
			}

			t.Setenv("QL_DATA_DIR", "")
			t.Setenv("QL_TOKEN", admin)
			remote := want("ql-edge secrets set NAME --api-url " + base)
			if code, out, errOut := ql(t, "apply", "--dry-run", "-f", file, "--api-url", base); code != 0 || errOut != remote {
				t.Errorf("apply --dry-run --api-url: %d %q\nstderr:\n%q\nwant:\n%q", code, out, errOut, remote)
			}
			if code, out, errOut := ql(t, "apply", "-f", file, "--api-url", base); code != 0 || errOut != remote {
				t.Errorf("apply --api-url: %d %q\nstderr:\n%q\nwant:\n%q", code, out, errOut, remote)
			}
			other := t.TempDir()
			local := want("ql-edge secrets set NAME --data-dir " + other)
			if code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", other); code != 0 || errOut != local {
				t.Errorf("local apply: %d %q\nstderr:\n%q\nwant the same lines as over the API:\n%q", code, out, errOut, local)
			}
		})
	}
}

// unusable is one way a secrets file is unusable: its cause, the why the
// note says of it and what makes the file so at path.
type unusable struct {
	cause, why string
	setUp      func(path string)
}

// unusableSecrets are the ways a secrets file can exist yet be unusable
// that this process can make: invalid JSON (holding a value that must
// never be shown), a directory in its place and a file others may read,
// as any user; a file its owner may not read (mode 000) only stops a user
// that is not root, so that case runs only then, and a file of another
// owner only root can make (chown), so that case runs only as root.
func unusableSecrets(t *testing.T) []unusable {
	write := func(content string, mode os.FileMode) func(string) {
		return func(path string) {
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []unusable{
		{"not_json", "it is not a JSON object of string values; correct its syntax if it is not valid JSON, " +
			`and write every value as a quoted string ({"name": "value"})`, write(`{"api_token": "v4lue-never-shown"`, 0o600)},
		{"not_regular", "it is not a regular file; put a JSON object of name → value, mode 0600, in its place", func(path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"mode", "group or others may access it (mode 0644); chmod it to 600", write(`{"api_token": "v4lue-never-shown"}`, 0o644)},
	}
	if os.Geteuid() != 0 {
		return append(cases, unusable{"denied", "the server's user may not read it (permission denied); make it that user's file, mode 0600", write(`{"api_token": "v4lue-never-shown"}`, 0)})
	}
	return append(cases, unusable{"owner", "it is owned by uid 65534, not by the server's user (uid 0); chown it to uid 0", func(path string) {
		write(`{"api_token": "v4lue-never-shown"}`, 0o600)(path)
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}})
}

// A secrets file that exists but that the server cannot use fails every
// Run and notification needing a secret (secret_unavailable), so an apply
// over the API notes it with why and what fixes it, naming every secret
// the file refers to and no byte of the file, and `ql apply --api-url`
// prints that note. A local `ql apply` may run as another user than the
// server, so it notes nothing of such a file. Not parallel: it sets
// $QL_TOKEN.
func TestTheServerNotesASecretsFileItCannotUseAndWhy(t *testing.T) {
	dir := installedDir(t)
	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	file := writeFile(t, t.TempDir(), "notes.yaml", notesFile)
	path := filepath.Join(dir, "qinglong-secrets.json")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	for _, c := range unusableSecrets(t) {
		t.Run(c.cause, func(t *testing.T) {
			c.setUp(path)
			t.Cleanup(func() {
				if err := os.RemoveAll(path); err != nil {
					t.Fatal(err)
				}
			})
			line := "note: the secrets file " + path + " cannot be used: " + c.why +
				". Until it can, every Run or notification that needs api_token, db_pass, ops_hmac fails (secret_unavailable)\n"

			st, body := call(t, "POST", base+"/api/v1/apply?dryRun=true", admin, notesFile)
			notes := notesOf(t, body)
			if st != 200 || len(notes) != 3 {
				t.Fatalf("dry run: %d, notes %v; want 200 with three", st, body["notes"])
			}
			n := notes[2]
			params, _ := n["params"].(map[string]any)
			if n["reason"] != "defs_note_secrets_unusable" || params["cause"] != c.cause || params["file"] != path || "note: "+n["message"].(string)+"\n" != line {
				t.Errorf("the secrets note %v; want reason defs_note_secrets_unusable, cause %s, file %s, saying %q", n, c.cause, path, line)
			}
			if code, out, errOut := ql(t, "apply", "-f", file, "--api-url", base); code != 0 || errOut != notePlacement+noteJitter+line || strings.Contains(errOut, "v4lue") {
				t.Errorf("apply --api-url: %d %q\nstderr:\n%q\nwant:\n%q", code, out, errOut, notePlacement+noteJitter+line)
			}
			if code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir); code != 0 || errOut != notePlacement+noteJitter {
				t.Errorf("local apply: %d %q\nstderr:\n%q\nwant no secrets note (it cannot judge the server's file):\n%q", code, out, errOut, notePlacement+noteJitter)
			}
		})
	}
}
