package task

import (
	"flag"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

var update = flag.Bool("update", false, "rewrite testdata/commands from the encoder")

// goldenCommands are the representative commands whose stored forms live
// in testdata: testdata/commands holds what EncodeCommand writes today, and
// the legacy-* directories hold, byte for byte, what each adapter wrote
// before the stored form was shared.
var goldenCommands = map[string]Command{
	"argv-minimal": {Mode: ModeArgv, Path: "/usr/bin/true", TimeoutMs: 3_600_000},
	"argv-env-workdir": {Mode: ModeArgv, Path: "/usr/bin/env", Args: []string{"-i", "", "a b"},
		Env:        []EnvVar{{Name: "DB_PASSWORD", SecretRef: "db.password"}, {Name: "EMPTY"}, {Name: "MODE", Value: "prod"}},
		WorkingDir: "/srv/app", TimeoutMs: 90_000},
	"shell-script": {Mode: ModeShell, Shell: "/bin/bash",
		Script: "set -eu\necho \"<a> & b\" 2>&1 | tee /tmp/out\nprintf 'ü\\t%s\\n' \"$1\"\n", TimeoutMs: 1},
	"runas-killgrace": {Mode: ModeShell, Shell: "/bin/sh", Script: "exec sleep 60", TimeoutMs: 120_000,
		RunAs: RunAs{User: "svc", Group: "svc-data"}, KillGraceMs: 1500},
	"runas-user-only": {Mode: ModeArgv, Path: "/bin/true", TimeoutMs: 1000, RunAs: RunAs{User: "1001"}},
	"killgrace-only":  {Mode: ModeArgv, Path: "/bin/true", TimeoutMs: 1000, KillGraceMs: 600_000},
}

// newerGoldenCommands use fields added after the stored form was shared,
// so no former encoder ever wrote them: they have no legacy files.
var newerGoldenCommands = map[string]Command{
	"retry-lost": {Mode: ModeArgv, Path: "/bin/true", TimeoutMs: 1000,
		Retry: RetryPolicy{MaxAttempts: 3, On: []string{RetryOnLost}}},
	"retry-all-backoff": {Mode: ModeShell, Shell: "/bin/sh", Script: "exit 1", TimeoutMs: 60_000,
		Retry: RetryPolicy{MaxAttempts: MaxRetryAttempts, BackoffMs: 10_000, On: []string{RetryOnFailed, RetryOnLost, RetryOnTimedOut}}},
	"placement-only": {Mode: ModeArgv, Path: "/bin/true", TimeoutMs: 1000,
		Placement: Placement{Labels: map[string]string{"region": "eu-west", "gpu": "true"}}},
	"retry-placement-killgrace": {Mode: ModeArgv, Path: "/usr/bin/env", Args: []string{"date"}, TimeoutMs: 5000, KillGraceMs: 250,
		Retry:     RetryPolicy{MaxAttempts: 2, BackoffMs: 0, On: []string{RetryOnLost, RetryOnTimedOut}},
		Placement: Placement{Labels: map[string]string{"pool": "batch"}}},
}

func readGolden(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStoredCommandsMatchTheirGoldenFiles(t *testing.T) {
	t.Parallel()
	all := maps.Clone(goldenCommands)
	maps.Copy(all, newerGoldenCommands)
	for name, c := range all {
		if err := (Spec{Name: "job", Command: c}).Validate(); err != nil {
			t.Fatalf("%s is not a valid command: %v", name, err)
		}
		got, err := EncodeCommand(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join("testdata", "commands", name+".json")
		if *update {
			if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if want := strings.TrimSuffix(string(readGolden(t, "commands", name)), "\n"); string(got) != want {
			t.Fatalf("%s encodes as\n%s\nthe golden file holds\n%s\nA stored form is forever: add a new format instead of changing this one.", name, got, want)
		}
		again, _ := EncodeCommand(c)
		if string(again) != string(got) {
			t.Fatalf("%s: two encodings differ:\n%s\n%s", name, got, again)
		}
		back, err := DecodeCommand(got)
		if err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("%s reads back as %+v, %v; want %+v", name, back, err, c)
		}
	}
}

// Databases written before the shared stored form must still read: every
// command either adapter stored then decodes to the same command, and so
// to the same content digest.
func TestCommandsStoredByEitherFormerEncoderStillDecode(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"legacy-pgstore", "legacy-sqlitestore"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil || len(files) != len(goldenCommands) {
			t.Fatalf("%s holds %d files (%v), want one per golden command (%d)", dir, len(files), err, len(goldenCommands))
		}
		for name, c := range goldenCommands {
			got, err := DecodeCommand(readGolden(t, dir, name))
			if err != nil {
				t.Fatalf("%s/%s: %v", dir, name, err)
			}
			if !reflect.DeepEqual(got, c) {
				t.Fatalf("%s/%s decodes as %+v, want %+v", dir, name, got, c)
			}
			spec := Spec{Name: "job", Enabled: true, Command: c}
			if ContentDigest(projectID, taskID, Spec{Name: "job", Enabled: true, Command: got}) != ContentDigest(projectID, taskID, spec) {
				t.Fatalf("%s/%s: decoded command digests differently", dir, name)
			}
		}
	}
}

func TestDecodingRejectsWhatItDoesNotFullyUnderstand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ doc, want string }{
		{`{"format":1,"mode":"argv","path":"/bin/true","timeoutMs":1,"user":"root"}`, `unknown field "user"`},
		{`{"format":1,"mode":"argv","path":"/bin/true","timeoutMs":1,"runAs":{"user":"a","uid":0}}`, `unknown field "uid"`},
		{`{"format":1,"mode":"argv","path":"/bin/true","timeoutMs":1,"env":[{"name":"A","value":"1","secret":"x"}]}`, `unknown field "secret"`},
		{`{"format":2,"mode":"argv","path":"/bin/true","timeoutMs":1}`, "format 2; this build reads formats up to 1"},
		{`{"format":1,"mode":"argv","path":"/bin/true","timeoutMs":1}{}`, "trailing data"},
		{`{"format":1,"path":"/bin/true","timeoutMs":1}`, "no mode"},
		{`null`, "no mode"},
		{`["argv"]`, "cannot unmarshal array"},
		{`{"format":1,"mode":"argv","args":"a b","timeoutMs":1}`, "cannot unmarshal string"},
		{`{"format":1,"mode":"argv"`, "unexpected EOF"},
	} {
		if _, err := DecodeCommand([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("decode %s: %v; want an error saying %q", c.doc, err, c.want)
		}
	}
}

func TestEncodingRefusesTextJSONWouldAlter(t *testing.T) {
	t.Parallel()
	c := goldenCommands["shell-script"]
	c.Script = "echo \xff"
	if _, err := EncodeCommand(c); !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "task.command.script") {
		t.Fatalf("encode a script with a byte that is not UTF-8: %v; want an invalid-argument error naming the script", err)
	}
}

func TestEmptyAndAbsentListsStoreAndDigestAlike(t *testing.T) {
	t.Parallel()
	absent := goldenCommands["argv-minimal"]
	empty := absent
	empty.Args, empty.Env = []string{}, []EnvVar{}
	a, _ := EncodeCommand(absent)
	e, _ := EncodeCommand(empty)
	if string(a) != string(e) {
		t.Fatalf("empty lists encode as %s, absent ones as %s", e, a)
	}
	if ContentDigest(projectID, taskID, Spec{Command: absent}) != ContentDigest(projectID, taskID, Spec{Command: empty}) {
		t.Fatal("empty and absent lists digest differently, so a stored command could not verify after a round trip")
	}
}

// A revision without retry or placement must store exactly what it stored
// before the fields existed: no "retry" or "placement" key, not even empty.
func TestCommandsWithoutRetryOrPlacementStoreNeitherField(t *testing.T) {
	t.Parallel()
	for name, c := range goldenCommands {
		c.Placement = Placement{Labels: map[string]string{}}
		got, err := EncodeCommand(Spec{Command: c}.Normalize().Command)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), `"retry"`) || strings.Contains(string(got), `"placement"`) {
			t.Fatalf("%s stores %s; a command without retry or placement must not name them", name, got)
		}
	}
}

func TestDecodingRejectsUnknownRetryAndPlacementFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ doc, want string }{
		{`{"format":1,"mode":"argv","path":"/bin/true","timeoutMs":1,"retry":{"maxAttempts":2,"backoffMs":0,"on":["lost"],"jitter":1}}`, `unknown field "jitter"`},
		{`{"format":1,"mode":"argv","path":"/bin/true","timeoutMs":1,"placement":{"labels":{},"zone":"a"}}`, `unknown field "zone"`},
	} {
		if _, err := DecodeCommand([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("decode %s: %v; want an error saying %q", c.doc, err, c.want)
		}
	}
}
