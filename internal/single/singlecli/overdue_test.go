package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/single/server"
)

// Read with --data-dir while no server runs on it, `ql triggers list`
// notes that a NEXT FIRE in the past is due and waits for a server, naming
// the command that starts one, and `ql triggers show` says its next
// occurrence is due and waits for the scheduler rather than that every
// occurrence so far got its run.
func TestAnOverdueTriggerReadWithNoServerSaysItWaitsForOne(t *testing.T) {
	t.Parallel()
	dir := unservedTickDir(t)
	serve := "`ql-edge serve --data-dir " + dir + "`"
	want := "no server is running on this data directory (" + dir + "), so nothing decides its triggers: a NEXT FIRE in the past is due and waits; at the next " + serve
	var said string
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(said, want); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("triggers list once the next fire passed:\n%s\nwant the note %q", said, want)
		}
		code, out, errOut := ql(t, "triggers", "list", "--data-dir", dir)
		if code != 0 {
			t.Fatalf("triggers list: %d %q %q", code, out, errOut)
		}
		said = out + errOut
	}
	code, out, errOut := ql(t, "triggers", "show", "demo/tick", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "is due and waits for the scheduler to admit it or pass it over; no server is running on this data directory ("+dir+"): "+serve+" decides it") ||
		strings.Contains(out, "every occurrence so far got its run") {
		t.Fatalf("triggers show: %d\n%s%s\nwant the next occurrence said due, waiting for a server", code, out, errOut)
	}
}

// unservedTickDir is a data directory whose trigger demo/tick fires every
// second and whose server decided it once and stopped, as a server killed
// or shut down does: its next fire passes within a second, overdue.
func unservedTickDir(t *testing.T) string {
	t.Helper()
	dir := installedDir(t)
	file := writeFile(t, t.TempDir(), "tick.yaml", "project: demo\ntasks:\n  - {name: t1, script: echo}\ntriggers:\n  - {name: tick, task: t1, cron: '* * * * * *', timezone: UTC}\n")
	if code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	// A server's one round decides the trigger, leaving its cursor at a
	// coming second; then it stops, as a server killed or shut down does.
	b, err := server.OpenBackend(t.Context(), server.LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := schedule.Round(t.Context(), b.Store, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Progress() != 1 {
		t.Fatalf("round: %v, %v; want the trigger decided", sum.Counts, err)
	}
	b.Close()
	return dir
}

// Read with --data-dir while no server runs on it, `ql triggers list -o
// json` carries the note the text listing prints under its table as a
// noServer object (dataDir, message), the shape `ql runs show -o json`
// gives a Run no server watches.
func TestAnOverdueTriggerListedAsJSONWithNoServerCarriesTheNote(t *testing.T) {
	t.Parallel()
	dir := unservedTickDir(t)
	want := "no server is running on this data directory (" + dir + "), so nothing decides its triggers: a NEXT FIRE in the past is due and waits; at the next `ql-edge serve --data-dir " + dir + "`"
	var v struct {
		NoServer *struct {
			DataDir string `json:"dataDir"`
			Message string `json:"message"`
		} `json:"noServer"`
	}
	var said string
	for deadline := time.Now().Add(30 * time.Second); v.NoServer == nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("triggers list -o json once the next fire passed:\n%s\nwant a noServer object", said)
		}
		code, out, errOut := ql(t, "triggers", "list", "--data-dir", dir, "-o", "json")
		if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
			t.Fatalf("triggers list -o json: %d %q %q", code, out, errOut)
		}
		said = out + errOut
	}
	if v.NoServer.DataDir != dir || !strings.HasPrefix(v.NoServer.Message, want) {
		t.Fatalf("triggers list -o json says noServer %+v; want dataDir %s and the message %q", *v.NoServer, dir, want)
	}
}
