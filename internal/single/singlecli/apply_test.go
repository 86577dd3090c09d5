package singlecli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// A dry run never creates the database, also not for an invalid file,
// and reports what applying would create, counting one task and one
// trigger in the singular.
func TestDryRunCreatesNoDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, errOut := ql(t, "apply", "--dry-run", "-f", writeFile(t, dir, "defs.yaml", goodFile), "--data-dir", dir)
	if code != 0 || strings.Count(out, "would create") != 3 || !strings.Contains(out, "valid (1 task, 1 trigger); dry run, nothing written") {
		t.Errorf("dry run: %d %q %q; want project, task and trigger reported as would create, and 1 task, 1 trigger counted", code, out, errOut)
	}
	bad := strings.Replace(goodFile, "timezone: UTC", "timezone: Mars/Olympus", 1)
	if code, _, _ := ql(t, "apply", "--dry-run", "-f", writeFile(t, dir, "bad.yaml", bad), "--data-dir", dir); code != 2 {
		t.Fatalf("dry run of an invalid file: exit %d, want 2, the file being wrong", code)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "qinglong.db") {
			t.Fatalf("a dry run created %s", e.Name())
		}
	}
}

// On an existing database a dry run reports updates against it and
// leaves the file as it was.
func TestDryRunOnAnExistingDatabaseChangesNothing(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	db := filepath.Join(dir, "qinglong.db")
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "defs.yaml", goodFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	before := fileSum(t, db)
	changed := strings.Replace(goodFile, "echo hello", "echo bye", 1)
	code, out, errOut := ql(t, "apply", "--dry-run", "-f", writeFile(t, dir, "changed.yaml", changed), "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "\n1 project unchanged\n") || !strings.Contains(out, "task hello: would update command.script (revision 2)") ||
		!strings.Contains(out, "trigger tick: would update taskRevision (revision 2)") {
		t.Fatalf("dry run: %d %q %q; want the task's changed script and its trigger following it", code, out, errOut)
	}
	if fileSum(t, db) != before {
		t.Fatal("a dry run changed the database file")
	}
	code, out, _ = ql(t, "apply", "-f", filepath.Join(dir, "defs.yaml"), "--data-dir", dir)
	if code != 0 || out != "1 project, 1 task and 1 trigger unchanged\n" {
		t.Fatalf("after the dry run the database moved: %d %q", code, out)
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// `-f -` reads the file from standard input. Not parallel: it replaces
// the process's standard input.
func TestApplyReadsStandardInput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdin
	os.Stdin = r
	t.Cleanup(func() { os.Stdin = saved; r.Close() })
	go func() {
		_, _ = w.WriteString(goodFile)
		w.Close()
	}()
	dir := installedDir(t)
	db := filepath.Join(dir, "qinglong.db")
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), Options("ql"), []string{"apply", "-f", "-", "--data-dir", dir}, &out, &errOut)
	if code != 0 || strings.Count(out.String(), "created") != 3 {
		t.Fatalf("apply -f -: %d %q %q", code, out.String(), errOut.String())
	}
	if _, err := os.Stat(db); errors.Is(err, os.ErrNotExist) {
		t.Fatal("apply -f - wrote no database")
	}
}

// The first apply into a --data-dir that does not exist yet makes it,
// private to the account, as the first `ql serve` would; so does
// `serve --example`, which applies the sample before serving.
func TestTheFirstApplyMakesAMissingDataDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new", "state")
	code, out, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "good.yaml", goodFile), "--data-dir", dir)
	if code != 0 || strings.Count(out, "created") != 3 {
		t.Fatalf("apply into a new directory: %d %q %q", code, out, errOut)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the data directory: %v %v; want it made with mode 0700", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "qinglong.db")); err != nil {
		t.Fatalf("apply wrote no database: %v", err)
	}
}

// Single-node profiles store placement but do not act on it: apply says so
// in one line, still succeeds, and a file without it gets no note — nor
// one with retry alone, which a single node acts on.
func TestApplyNotesThatSingleNodeIgnoresPlacementNotRetry(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	withRetry := strings.Replace(goodFile, "    script: echo hello\n",
		"    script: echo hello\n    retry: {maxAttempts: 3, on: [lost, failed]}\n    placement: {labels: {region: eu}}\n", 1)
	code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "retry.yaml", withRetry), "--data-dir", dir)
	if code != 0 || strings.Count(out, "created") != 3 {
		t.Fatalf("apply with retry and placement: %d %q %q; want it applied", code, out, errOut)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "note: placement is stored but not acted on") || !strings.Contains(errOut, "(tasks: hello)") {
		t.Fatalf("stderr %q; want one note naming the task", errOut)
	}
	code, out, errOut = ql(t, "apply", "--dry-run", "-f", filepath.Join(dir, "retry.yaml"), "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "1 project, 1 task and 1 trigger unchanged") || !strings.Contains(errOut, "note: placement is stored") {
		t.Fatalf("dry run: %d %q %q; want unchanged and the note", code, out, errOut)
	}
	plain := t.TempDir()
	if code, _, errOut := ql(t, "apply", "-f", writeFile(t, plain, "defs.yaml", goodFile), "--data-dir", plain); code != 0 || errOut != "" {
		t.Fatalf("apply without placement: %d, stderr %q; want no note", code, errOut)
	}
	onlyRetry := strings.Replace(goodFile, "    script: echo hello\n", "    script: echo hello\n    retry: {maxAttempts: 3, backoff: 10s, on: [failed]}\n", 1)
	retrying := t.TempDir()
	if code, _, errOut := ql(t, "apply", "-f", writeFile(t, retrying, "defs.yaml", onlyRetry), "--data-dir", retrying); code != 0 || errOut != "" {
		t.Fatalf("apply with retry alone: %d, stderr %q; want no note: a single node retries", code, errOut)
	}
}

// apply and its dry run note the triggers whose jitter is longer than the
// time between two of their occurrences, which then run less often than
// their cron says; a jitter below the period is applied without a word.
func TestApplyNotesAJitterLongerThanTheTimeBetweenOccurrences(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	defs := "project: demo\ntasks:\n  - name: job\n    script: echo hi\ntriggers:\n" +
		"  - {name: fast, task: job, cron: \"*/10 * * * * *\", timezone: UTC, jitter: 30s}\n" +
		"  - {name: daily, task: job, cron: \"0 9 * * *\", timezone: UTC, jitter: 1h}\n"
	file := writeFile(t, dir, "jitter.yaml", defs)
	const want = "keep jitter below the cron's period (triggers: fast (jitter 30s, 10s between occurrences))"
	for _, args := range [][]string{{"apply", "--dry-run", "-f", file, "--data-dir", dir}, {"apply", "-f", file, "--data-dir", dir}} {
		if code, out, errOut := ql(t, args...); code != 0 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, want) {
			t.Fatalf("%v: %d %q %q; want one note naming only the fast trigger", args, code, out, errOut)
		}
	}
	below := strings.Replace(defs, "jitter: 30s", "jitter: 9s", 1)
	if code, _, errOut := ql(t, "apply", "-f", writeFile(t, dir, "below.yaml", below), "--data-dir", dir); code != 0 || errOut != "" {
		t.Fatalf("apply with jitter below the period: %d, stderr %q; want no note", code, errOut)
	}
}

// A file may name secrets the secrets file does not define yet (it is read
// at each start), but every Run or notification needing one fails until
// it does: apply (and its dry run) names the missing ones in one note,
// still succeeds, and says nothing once they are defined.
func TestApplyNotesSecretsTheSecretsFileDoesNotDefineYet(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	defs := writeFile(t, t.TempDir(), "secrets.yaml", `project: vault
notifications:
  channels:
    ops: {type: webhook, url: "http://127.0.0.1:1/hook", signingSecret: ops_hmac}
  rules:
    - {on: failed, channel: ops}
tasks:
  - name: backup
    script: echo "$TOKEN"
    env: {TOKEN: {secret: api_token}, PLAIN: value}
`)
	// The dry run that previews the apply notes them as the apply does.
	code, out, errOut := ql(t, "apply", "--dry-run", "-f", defs, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "dry run, nothing written") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "does not define api_token, ops_hmac yet") {
		t.Fatalf("dry run naming undefined secrets: %d %q %q; want the plan and one note naming both secrets", code, out, errOut)
	}
	code, out, errOut = ql(t, "apply", "-f", defs, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "task backup: created") {
		t.Fatalf("apply naming undefined secrets: %d %q %q; want it applied", code, out, errOut)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "does not define api_token, ops_hmac yet") {
		t.Fatalf("stderr %q; want one note naming both secrets", errOut)
	}
	writeFile(t, dir, "qinglong-secrets.json", `{"api_token": "t0ken-value"}`)
	if _, _, errOut := ql(t, "apply", "-f", defs, "--data-dir", dir); !strings.Contains(errOut, "does not define ops_hmac yet") || strings.Contains(errOut, "api_token") {
		t.Fatalf("stderr %q; want the note to name only the secret still missing", errOut)
	}
	writeFile(t, dir, "qinglong-secrets.json", `{"api_token": "t0ken-value", "ops_hmac": "hmac-value"}`)
	if code, _, errOut := ql(t, "apply", "-f", defs, "--data-dir", dir); code != 0 || errOut != "" {
		t.Fatalf("apply with every secret defined: %d, stderr %q; want no note", code, errOut)
	}
}

// notesFile sets off every note apply prints: five tasks with placement
// (three named, the rest counted), five triggers whose jitter is
// longer than their period (likewise) and three secrets the secrets file
// does not define.
const notesFile = `project: noted
notifications:
  channels:
    ops: {type: webhook, url: "http://127.0.0.1:1/hook", signingSecret: ops_hmac}
  rules:
    - {on: failed, channel: ops}
tasks:
  - {name: t1, script: echo, placement: {labels: {region: eu}}, env: {A: {secret: api_token}}}
  - {name: t2, script: echo, placement: {labels: {region: eu}}}
  - {name: t3, script: echo, placement: {labels: {region: eu}}, env: {B: {secret: db_pass}, C: {secret: api_token}}}
  - {name: t4, script: echo, placement: {labels: {region: eu}}}
  - {name: t5, script: echo, placement: {labels: {region: eu}}}
triggers:
  - {name: a, task: t1, cron: "*/10 * * * * *", timezone: UTC, jitter: 30s}
  - {name: b, task: t1, cron: "* * * * *", timezone: UTC, jitter: 2m}
  - {name: c, task: t1, cron: "*/5 * * * * *", timezone: UTC, jitter: 1h}
  - {name: d, task: t1, cron: "*/10 * * * * *", timezone: UTC, jitter: 11s}
  - {name: e, task: t1, cron: "*/10 * * * * *", timezone: UTC, jitter: 12s}
`

// The lines `ql apply` prints on standard error for notesFile on a
// single-node database without a secrets file; the secrets line is
// noteSecrets's.
const (
	notePlacement = "note: placement is stored but not acted on: this single-node server runs every Run on its own machine (tasks: t1, t2, t3, and 2 more)\n"
	noteJitter    = "note: a jitter longer than the time between two occurrences makes the later one fall due before the earlier one is admitted, " +
		"and it is caught up like a missed one (fire_once collapses it, skip passes it over); keep jitter below the cron's period " +
		"(triggers: a (jitter 30s, 10s between occurrences), b (jitter 2m, 1m between occurrences), c (jitter 1h, 5s between occurrences), and 2 more)\n"
)

// noteSecrets is the line of the secrets notesFile names that the secrets
// file lacks, saying set as the command that sets one: the API's English
// names `ql secrets set NAME`, and `ql apply` prints its own binary's name
// with the location flag it was given, a command to paste.
func noteSecrets(set string) string {
	return "note: the secrets file (qinglong-secrets.json in the data directory) does not define api_token, db_pass, ops_hmac yet: " +
		"set each with `" + set + "`, or on the console's Secrets page, before a Run or notification needs it, or it fails\n"
}

// The notes of `ql apply` and its dry run are the same bytes whoever
// computes them: scripts and operators read these lines.
func TestApplysEnglishNotesAreByteForByteTheSame(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	file := writeFile(t, t.TempDir(), "notes.yaml", notesFile)
	want := notePlacement + noteJitter + noteSecrets("ql-edge secrets set NAME --data-dir "+dir)
	if code, out, errOut := ql(t, "apply", "--dry-run", "-f", file, "--data-dir", dir); code != 0 || errOut != want {
		t.Errorf("dry run: %d %q\nstderr:\n%q\nwant:\n%q", code, out, errOut, want)
	}
	if code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir); code != 0 || errOut != want {
		t.Errorf("apply: %d %q\nstderr:\n%q\nwant:\n%q", code, out, errOut, want)
	}
}
