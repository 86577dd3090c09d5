package singlecli

import (
	"path/filepath"
	"strings"
	"testing"
)

// `triggers run --follow` prints its report, then the Run's output until
// the Run ends, as `runs logs -f` does; with --exit-status it exits by
// that end, and so does `runs rerun --follow`. A request the overlap
// policy refuses follows nothing and exits 3.
func TestTriggersRunFollowPrintsTheRunsOutputUntilItEnds(t *testing.T) {
	t.Parallel()
	held := t.TempDir()
	dir, db := serveDefs(t, exitStatusFile(filepath.Join(held, "release")))
	t.Cleanup(func() { writeFile(t, held, "release", "") })
	code, out, errOut := ql(t, "triggers", "run", "ok", "--follow", "--data-dir", dir)
	ok := runIDOf(t, out)
	report, output, _ := strings.Cut(out, "\n")
	if code != 0 || !strings.HasPrefix(report, "trigger ok: run "+ok+" queued (request ") || output != "all good\n" ||
		!strings.HasSuffix(errOut, "(run "+ok+" ended: succeeded)\n") {
		t.Fatalf("triggers run --follow: exit %d, %q, stderr %q; want the report, then the output and the end", code, out, errOut)
	}
	code, out, errOut = ql(t, "triggers", "run", "bad", "--follow", "--exit-status", "--data-dir", dir)
	bad := runIDOf(t, out)
	if code != 6 || !strings.HasSuffix(out, "\nbroken\n") || !strings.Contains(errOut, "(run "+bad+" ended: failed") {
		t.Fatalf("triggers run --follow --exit-status of a failing task: exit %d, %q, stderr %q; want 6 after its output and its end", code, out, errOut)
	}
	if code, out, errOut := ql(t, "triggers", "run", "bad", "--follow", "--data-dir", dir); code != 0 || !strings.HasSuffix(out, "\nbroken\n") {
		t.Fatalf("triggers run --follow of a failing task without --exit-status: exit %d, %q, %q; want 0", code, out, errOut)
	}
	code, out, errOut = ql(t, "runs", "rerun", bad, "--follow", "--exit-status", "--data-dir", dir)
	if code != 6 || !strings.HasPrefix(out, "run "+bad+": re-run as run ") || !strings.HasSuffix(out, "\nbroken\n") || !strings.Contains(errOut, "ended: failed") {
		t.Fatalf("runs rerun --follow --exit-status of a failed Run: exit %d, %q, stderr %q; want 6 after the new Run's output", code, out, errOut)
	}
	if code, _, errOut := ql(t, "triggers", "run", "ok", "--exit-status", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "add --follow") {
		t.Fatalf("triggers run --exit-status without --follow: exit %d, %q; want 2 saying to add --follow", code, errOut)
	}

	// hold runs until released: a second request is refused by
	// overlap: skip and follows nothing.
	if code, out, errOut := ql(t, "triggers", "run", "hold", "--data-dir", dir); code != 0 {
		t.Fatalf("triggers run hold: %d %q %q", code, out, errOut)
	}
	runIn(t, db, "running")
	code, out, errOut = ql(t, "triggers", "run", "hold", "--follow", "--exit-status", "--data-dir", dir)
	if code != 3 || !strings.Contains(out, "not run (overlap") || strings.Contains(out, "holding") || errOut != "" {
		t.Fatalf("triggers run --follow refused by overlap: exit %d, %q, stderr %q; want 3 and nothing followed", code, out, errOut)
	}
}

// Over --api-url, `triggers run --follow --exit-status` and `runs logs
// --exit-status` exit as on the database: 6 for a Run that failed, 0 for
// one that succeeded, 2 for one not ended without -f.
func TestExitStatusOverTheAPIExitsAsOnTheDatabase(t *testing.T) {
	held := t.TempDir()
	dir := installedDir(t)
	applyDefs(t, dir, exitStatusFile(filepath.Join(held, "release")))
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	t.Cleanup(func() { writeFile(t, held, "release", "") })
	db := readOnlyDB(t, dir)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)

	o := overAPI(t, base, "triggers", "run", "bad", "--follow", "--exit-status")
	bad := runIDOf(t, o.out)
	if o.code != 6 || !strings.HasSuffix(o.out, "\nbroken\n") || !strings.Contains(o.err, "(run "+bad+" ended: failed") {
		t.Fatalf("triggers run --follow --exit-status over the API: %+v; want 6 after the output and the end", o)
	}
	o = overAPI(t, base, "triggers", "run", "ok", "--follow", "--exit-status")
	if ok := runIDOf(t, o.out); o.code != 0 || !strings.HasSuffix(o.out, "\nall good\n") || !strings.Contains(o.err, "(run "+ok+" ended: succeeded)") {
		t.Fatalf("triggers run --follow --exit-status of a succeeding task over the API: %+v; want 0", o)
	}
	for _, args := range [][]string{{"runs", "logs", "-f", "--exit-status", bad}, {"runs", "logs", "--exit-status", bad}, {"runs", "logs", "-f", bad}} {
		sameAs(t, strings.Join(args, " "), overAPI(t, base, args...), onDB(t, dir, args...), nil)
	}
	if o := overAPI(t, base, "runs", "logs", "-f", "--exit-status", bad); o.code != 6 {
		t.Fatalf("runs logs -f --exit-status of a failed Run over the API: %+v; want 6", o)
	}
	o = overAPI(t, base, "triggers", "run", "hold")
	hold := runIDOf(t, o.out)
	runIn(t, db, "running")
	if o := overAPI(t, base, "runs", "logs", "--exit-status", hold); o.code != 2 || o.out != "" || !strings.Contains(o.err, "has not ended") {
		t.Fatalf("runs logs --exit-status of a running Run over the API: %+v; want 2 and to add -f", o)
	}
}
