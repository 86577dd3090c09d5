package singlecli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/process"
)

// secretsDefs uses hook-key from a task's env and a channel, db_pass from
// a task of an archived project, and no other name.
const secretsDefs = `project: rich
notifications:
  channels:
    hook: {type: webhook, url: "https://hooks.example.com/q", signingSecret: hook-key}
  rules:
    - {on: failed, channel: hook}
tasks:
  - {name: zeta-argv, command: ["/usr/bin/env"], env: {A: {secret: hook-key}}}
`

const archivedDefs = `project: old
tasks:
  - {name: dump, script: "true", env: {PASS: {secret: db_pass}}}
`

// qlStdin runs ql-edge with stdin as its standard input.
func qlStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.MainIn(context.Background(), Options("ql-edge"), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// secretsDir is a data directory with secretsDefs and archivedDefs
// applied, the project of archivedDefs archived after.
func secretsDir(t *testing.T) string {
	t.Helper()
	dir := installedDir(t)
	applyDefs(t, dir, secretsDefs)
	applyDefs(t, dir, archivedDefs)
	applyDefs(t, dir, "project: old\nstatus: archived\n")
	return dir
}

// A value piped to `secrets set` loses one trailing line ending, no more,
// and is what a Run resolves; the command says created, then replaced,
// and which tasks and channels use the name, or hints when none does.
func TestSecretsSetFromAPipeStripsOneLineEndingAndTheRunResolvesIt(t *testing.T) {
	t.Parallel()
	dir := secretsDir(t)
	file := process.Secrets{Path: filepath.Join(dir, "qinglong-secrets.json")}
	code, out, errOut := qlStdin(t, "line-one\n\n", "secrets", "set", "hook-key", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "secret hook-key: created\n") || !strings.Contains(out, "used by: rich channel hook, rich/zeta-argv (env A)") {
		t.Fatalf("set: %d %q %q", code, out, errOut)
	}
	if got, err := file.Resolve([]string{"hook-key"}); err != nil || got["hook-key"] != "line-one\n" {
		t.Fatalf("resolves %q, %v; want the value without one line ending", got["hook-key"], err)
	}
	code, out, errOut = qlStdin(t, "crlf-value\r\n", "secrets", "set", "hook-key", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "secret hook-key: replaced\n") {
		t.Fatalf("replace: %d %q %q", code, out, errOut)
	}
	if got, err := file.Resolve([]string{"hook-key"}); err != nil || got["hook-key"] != "crlf-value" {
		t.Fatalf("resolves %q, %v; want the value without its \\r\\n", got["hook-key"], err)
	}
	code, out, errOut = qlStdin(t, "unused-value", "secrets", "set", "spare", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "hint: no definition uses spare yet") {
		t.Fatalf("set an unused name: %d %q %q", code, out, errOut)
	}
	for _, s := range []string{out, errOut} {
		if strings.Contains(s, "unused-value") || strings.Contains(s, "crlf-value") {
			t.Errorf("the output holds a value: %q", s)
		}
	}
	code, _, errOut = qlStdin(t, strings.Repeat("x", process.MaxSecretLen+3), "secrets", "set", "big", "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, "at most 32768") {
		t.Errorf("an overlong value: %d %q; want exit 2 naming the limit", code, errOut)
	}
}

// Setting an unused upper-case name hints at both a task's env and a
// notification channel: a task refers to every name the secrets file
// stores (task.IsSecretName), upper case too.
func TestSecretsSetAnUnusedUpperCaseNameHintsAnEnvReference(t *testing.T) {
	t.Parallel()
	dir := secretsDir(t)
	code, out, errOut := qlStdin(t, "upper-value", "secrets", "set", "SHOP_TOKEN", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "secret SHOP_TOKEN: created\n") {
		t.Fatalf("set: %d %q %q", code, out, errOut)
	}
	if !strings.Contains(out, "refer to it from a task's env ({secret: SHOP_TOKEN}) or a notification channel's …Secret field") {
		t.Errorf("the hint for an upper-case name is %q; want it to name a task's env and a channel", out)
	}
}

// `secrets list` shows each name defined or missing beside its uses, an
// archived project's marked, in a table and as JSON; with the file alone
// it lists the names and says the uses are not known.
func TestSecretsListShowsDefinedAndMissingNamesWithTheirUses(t *testing.T) {
	t.Parallel()
	dir := secretsDir(t)
	if code, out, errOut := qlStdin(t, "hook-value", "secrets", "set", "hook-key", "--data-dir", dir); code != 0 {
		t.Fatalf("set: %d %q %q", code, out, errOut)
	}
	code, out, errOut := ql(t, "secrets", "list", "--data-dir", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") ||
		!strings.Contains(lines[1], "db_pass") || !strings.Contains(lines[1], "missing") || !strings.Contains(lines[1], "old/dump (env PASS) [archived]") ||
		!strings.Contains(lines[2], "hook-key") || !strings.Contains(lines[2], "yes") || !strings.Contains(lines[2], "rich channel hook, rich/zeta-argv (env A)") {
		t.Fatalf("list: %d %q %q", code, out, errOut)
	}
	code, out, errOut = ql(t, "secrets", "list", "--data-dir", dir, "-o", "json")
	var l apply.SecretListing
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || !l.UsesKnown || !l.Complete || len(l.Secrets) != 2 || l.Secrets[0].Defined || !l.Secrets[1].Defined {
		t.Fatalf("list -o json: %d %q %q", code, out, errOut)
	}
	// A name nothing is known to use (the file alone) has an empty list
	// of uses, not null, which jq's .usedBy[] cannot iterate.
	code, out, errOut = ql(t, "secrets", "list", "--secrets-file", filepath.Join(dir, "qinglong-secrets.json"), "-o", "json")
	if code != 0 || !strings.Contains(out, `"usedBy": []`) || strings.Contains(out, "null") {
		t.Fatalf("list --secrets-file -o json: %d %q %q; want usedBy [] for a name nothing is known to use", code, out, errOut)
	}
	code, out, errOut = ql(t, "secrets", "list", "--secrets-file", filepath.Join(dir, "qinglong-secrets.json"))
	if code != 0 || !strings.Contains(out, "hook-key") || strings.Contains(out, "db_pass") ||
		!strings.Contains(out, "which tasks and channels use these names is not known without --data-dir or --api-url") {
		t.Fatalf("list --secrets-file: %d %q %q", code, out, errOut)
	}
	if strings.Contains(out, "hook-value") {
		t.Errorf("the listing holds a value: %q", out)
	}
}

// Deleting a secret the definitions still use warns on standard error,
// naming the uses and what fails, and exits 0; deleting a name the file
// does not define exits 1 naming those it does.
func TestSecretsDeleteWarnsOfAUsedSecretAndRefusesAnUndefinedOne(t *testing.T) {
	t.Parallel()
	dir := secretsDir(t)
	for _, name := range []string{"hook-key", "spare"} {
		if code, out, errOut := qlStdin(t, "some-value\n", "secrets", "set", name, "--data-dir", dir); code != 0 {
			t.Fatalf("set %s: %d %q %q", name, code, out, errOut)
		}
	}
	code, out, errOut := ql(t, "secrets", "delete", "hook-key", "--data-dir", dir)
	if code != 0 || out != "secret hook-key: deleted\n" ||
		!strings.Contains(errOut, "warning: hook-key is still used by rich channel hook, rich/zeta-argv (env A): their Runs and notifications fail with secret_unavailable") {
		t.Fatalf("delete a used secret: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "secrets", "delete", "spare", "--data-dir", dir); code != 0 || errOut != "" {
		t.Fatalf("delete an unused secret: %d %q %q; want no warning", code, out, errOut)
	}
	if code, out, errOut := qlStdin(t, "some-value\n", "secrets", "set", "other", "--data-dir", dir); code != 0 {
		t.Fatalf("set other: %d %q %q", code, out, errOut)
	}
	code, _, errOut = ql(t, "secrets", "delete", "hook-key", "--data-dir", dir)
	if code != 1 || !strings.Contains(errOut, `secret "hook-key" is not defined: the secrets file `) || !strings.Contains(errOut, "defines other") {
		t.Errorf("delete an undefined secret: %d %q; want exit 1 naming what is defined", code, errOut)
	}
}

// A value is never taken from the command line, where every user of the
// host reads it: a second argument is refused saying so, and there is no
// flag for it.
func TestSecretsSetRefusesAValueOnTheCommandLine(t *testing.T) {
	t.Parallel()
	dir := secretsDir(t)
	code, _, errOut := qlStdin(t, "", "secrets", "set", "hook-key", "argv-value", "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, "never taken from the command line") || !strings.Contains(errOut, "(ps)") {
		t.Errorf("a value as an argument: %d %q; want exit 2 saying why", code, errOut)
	}
	for _, flag := range []string{"--value", "--secret"} {
		if code, _, errOut := qlStdin(t, "", "secrets", "set", "hook-key", flag, "argv-value", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "unknown flag") {
			t.Errorf("%s: %d %q; want exit 2, no such flag", flag, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "qinglong-secrets.json")); !os.IsNotExist(err) {
		t.Errorf("the secrets file was written: %v", err)
	}
}

// A secret set by a user other than the file's owner (root, writing a file
// in a directory of the server's user) says whose the file is and that
// only that user's server or worker may read it: a server run as anyone
// else refuses the file, and otherwise says so only at the first delivery
// or Run that needs it. A user editing a file of its own is told nothing.
func TestSecretsSetSaysWhoseTheFileIsWhenItIsAnotherUsers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "secrets.json")
	code, out, errOut := qlStdin(t, "v4lue\n", "secrets", "set", "hook-key", "--secrets-file", file)
	if code != 0 || strings.Contains(out, "note:") {
		t.Fatalf("set in a directory of one's own: %d %q %q; want no note", code, out, errOut)
	}
	if os.Geteuid() != 0 {
		// Only root writes a file for another user.
		return
	}
	const server = 54321
	theirs := t.TempDir()
	if err := os.Chown(theirs, server, server); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(theirs, "secrets.json")
	code, out, errOut = qlStdin(t, "v4lue\n", "secrets", "set", "hook-key", "--secrets-file", file)
	if code != 0 || !strings.Contains(out, "note: "+file+" belongs to uid 54321") || !strings.Contains(out, "chown") || strings.Contains(out, "v4lue") {
		t.Fatalf("set as root in uid %d's directory: %d %q %q; want a note naming the file's owner and the chown", server, code, out, errOut)
	}
}
