package singlecli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/single/server"
)

const handoverFile = "project: moving\ntasks:\n  - {name: job, script: 'true'}\ntriggers:\n" +
	"  - {name: hourly, task: job, cron: '0 * * * *', timezone: UTC}\n" +
	"  - {name: halfhour, task: job, cron: '30 * * * *', timezone: UTC}\n"

// handedSource is a data directory whose triggers a server decided, then
// stopped: hourly's next occurrence not yet admitted is stoppedAt, three
// hours back (its server stopped then); halfhour is paused on its own by
// alice, the project by bob.
func handedSource(t *testing.T) (dir string, stoppedAt int64) {
	t.Helper()
	stoppedAt = time.Now().UTC().Truncate(time.Hour).Add(-3 * time.Hour).UnixMilli()
	dir, b := decidedWithHourlyAt(t, stoppedAt)
	defer b.Close()
	half := triggerID(t, readOnlyDB(t, dir), "halfhour")
	if _, err := b.Store.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: half, Pause: true, Note: "upstream down", Actor: "alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Store.ProjectPause(t.Context(), schedule.ProjectPauseRequest{Project: "moving", Pause: true, Note: "migration", Actor: "bob"}); err != nil {
		t.Fatal(err)
	}
	return dir, stoppedAt
}

// decidedWithHourlyAt is a data directory of handoverFile whose triggers
// a round decided, hourly's next occurrence then moved to atMs, with its
// backend, open for the caller to close.
func decidedWithHourlyAt(t *testing.T, atMs int64) (string, *server.Backend) {
	t.Helper()
	dir := installedDir(t)
	applyDefs(t, dir, handoverFile)
	b, err := server.OpenBackend(t.Context(), server.LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := schedule.Round(t.Context(), b.Store, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Progress() != 2 {
		b.Close()
		t.Fatalf("round: %v, %v; want both triggers decided", sum.Counts, err)
	}
	db, err := sql.Open("sqlite", server.LayoutOf(dir).DB+"?_pragma=busy_timeout(5000)")
	if err != nil {
		b.Close()
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `UPDATE trigger_schedules SET next_fire_at_ms = ?, state_version = state_version + 1
		WHERE trigger_id = (SELECT id FROM triggers WHERE name = 'hourly')`, atMs); err != nil {
		b.Close()
		t.Fatal(err)
	}
	return dir, b
}

// scheduleOf is a trigger's cursor, pause flags and note, and its newest
// pause record's actor.
type scheduleOf struct {
	cursor            sql.NullInt64
	paused, withProj  bool
	note, pausedActor string
}

func readSchedule(t *testing.T, dir, name string) scheduleOf {
	t.Helper()
	var s scheduleOf
	err := readOnlyDB(t, dir).QueryRowContext(t.Context(), `SELECT s.next_fire_at_ms, s.paused, s.paused_with_project, coalesce(s.pause_note, ''),
		coalesce((SELECT a.actor FROM trigger_schedule_audit a WHERE a.trigger_id = s.trigger_id AND a.action = 'pause' ORDER BY a.id DESC LIMIT 1), '')
		FROM trigger_schedules s JOIN triggers t ON t.id = s.trigger_id WHERE t.name = ?`, name).Scan(&s.cursor, &s.paused, &s.withProj, &s.note, &s.pausedActor)
	if err != nil {
		t.Fatalf("schedule of %s: %v", name, err)
	}
	return s
}

// `export --all --with-state` writes each project's file and, per
// trigger, its next occurrence not yet admitted and the pauses; `apply
// --adopt-state` into another database starts each schedule there — the
// first occurrence it admits is the one the source stopped at, not one
// after the apply — and sets the trigger's own pause and the project's
// with their notes and who paused them. Asked again, it changes nothing.
func TestAHandoverStartsEachScheduleAtTheSourcesNextOccurrenceWithItsPauses(t *testing.T) {
	t.Parallel()
	src, stoppedAt := handedSource(t)
	out := filepath.Join(t.TempDir(), "handover")
	code, stdout, errOut := ql(t, "export", "--all", "--with-state", "-o", out, "--data-dir", src)
	if code != 0 || !strings.Contains(errOut, "wrote 1 project (1 task, 2 triggers) to "+out) || !strings.Contains(errOut, "this database is handed over") {
		t.Fatalf("export --all --with-state: exit %d %q %q", code, stdout, errOut)
	}
	state := filepath.Join(out, cli.HandoverStateFile)
	if st, err := os.Stat(state); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the state file: %v (%v); want mode 0600", st, err)
	}
	dst := installedDir(t)
	args := []string{"apply", "-f", filepath.Join(out, "moving.yaml"), "--adopt-state", state, "--data-dir", dst}
	code, stdout, errOut = ql(t, args...)
	if code != 0 || !strings.Contains(stdout, "trigger moving/hourly: adopted, next occurrence "+time.UnixMilli(stoppedAt).UTC().Format(time.RFC3339)) {
		t.Fatalf("apply --adopt-state: exit %d %q %q", code, stdout, errOut)
	}
	hourly := readSchedule(t, dst, "hourly")
	if !hourly.cursor.Valid || hourly.cursor.Int64 != stoppedAt || !hourly.paused || !hourly.withProj {
		t.Fatalf("hourly in the target: %+v; want its cursor at %d, paused with its project", hourly, stoppedAt)
	}
	half := readSchedule(t, dst, "halfhour")
	if !half.paused || half.withProj || half.note != "upstream down" || half.pausedActor != "alice" {
		t.Fatalf("halfhour in the target: %+v; want paused on its own, note \"upstream down\", by alice", half)
	}
	var paused bool
	var note, actor string
	if err := readOnlyDB(t, dst).QueryRowContext(t.Context(), `SELECT paused, coalesce(note, ''), actor FROM project_pauses`).Scan(&paused, &note, &actor); err != nil ||
		!paused || note != "migration" || actor != "bob" {
		t.Fatalf("the project's pause in the target: %v %q %q (%v); want paused, note \"migration\", by bob", paused, note, actor, err)
	}
	if code, stdout, errOut = ql(t, args...); code != 0 || strings.Contains(stdout, "paused, as at the source") ||
		!strings.Contains(stdout, "trigger moving/hourly: unchanged, already adopted at this position") || strings.Contains(stdout, ": adopted,") {
		t.Fatalf("apply --adopt-state again: exit %d %q %q; want nothing more done", code, stdout, errOut)
	}
	if again := readSchedule(t, dst, "hourly"); again.cursor != hourly.cursor {
		t.Fatalf("applied again, hourly's cursor moved: %+v -> %+v", hourly, again)
	}
}

// A plain export says which pauses its file does not carry: the paused
// project and the triggers paused on their own.
func TestAPlainExportNotesThePausedProjectAndTriggers(t *testing.T) {
	t.Parallel()
	src, _ := handedSource(t)
	code, _, errOut := ql(t, "export", "moving", "--data-dir", src)
	if code != 0 || !strings.Contains(errOut, "note: project moving is paused (since ") || !strings.Contains(errOut, "by bob)") ||
		!strings.Contains(errOut, "paused on their own in project moving: 1 trigger (halfhour)") {
		t.Fatalf("export of a paused project: exit %d %q; want the project's pause and halfhour's noted", code, errOut)
	}
}

// `apply --adopt-state` reads and checks the state file before it
// publishes anything: a state file that holds no state of the file's
// project, or is no state file at all, refuses the apply (exit 2,
// state_file) with the target database still without the project.
func TestABadStateFileRefusesTheApplyBeforeAnythingIsPublished(t *testing.T) {
	t.Parallel()
	src, _ := handedSource(t)
	out := filepath.Join(t.TempDir(), "handover")
	if code, stdout, errOut := ql(t, "export", "--all", "--with-state", "-o", out, "--data-dir", src); code != 0 {
		t.Fatalf("export --all --with-state: exit %d %q %q", code, stdout, errOut)
	}
	other := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(other, []byte(strings.ReplaceAll(handoverFile, "project: moving", "project: elsewhere")), 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(t.TempDir(), "garbage.json")
	if err := os.WriteFile(garbage, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, defs, state, says string }{
		{"another project's state", other, filepath.Join(out, cli.HandoverStateFile), "holds no project elsewhere"},
		{"no state file", filepath.Join(out, "moving.yaml"), garbage, "is not a state file"},
	} {
		dst := installedDir(t)
		code, stdout, errOut := ql(t, "apply", "-f", c.defs, "--adopt-state", c.state, "--data-dir", dst)
		if code != 2 || !strings.Contains(errOut, c.says) || strings.Contains(stdout, "created") {
			t.Errorf("%s: exit %d %q %q; want exit 2 saying %q, nothing created", c.what, code, stdout, errOut, c.says)
		}
		var projects int
		if err := readOnlyDB(t, dst).QueryRowContext(t.Context(), `SELECT count(*) FROM projects`).Scan(&projects); err != nil || projects != 0 {
			t.Errorf("%s: %d projects in the target (%v); want none published", c.what, projects, err)
		}
	}
}

// handedWithQueued is a data directory handed over (`export --all
// --with-state`) while it held one Run queued by hand, with the handover
// directory.
func handedWithQueued(t *testing.T) (dir, out string) {
	t.Helper()
	dir = installedDir(t)
	applyDefs(t, dir, handoverFile)
	if code, stdout, errOut := ql(t, "triggers", "run", "moving/hourly", "--data-dir", dir); code != 0 {
		t.Fatalf("triggers run: exit %d %q %q", code, stdout, errOut)
	}
	out = filepath.Join(t.TempDir(), "handover")
	if code, stdout, errOut := ql(t, "export", "--all", "--with-state", "-o", out, "--data-dir", dir); code != 0 {
		t.Fatalf("export --all --with-state: exit %d %q %q", code, stdout, errOut)
	}
	return dir, out
}

// `runs list` on a handed-over data directory does not tell the operator
// to start a server there (that start is refused): it says how many Runs
// stay queued and that they run only after a take-back.
func TestRunsListOnAHandedOverDatabaseSaysItsQueuedRunsWaitForATakeBack(t *testing.T) {
	t.Parallel()
	dir, _ := handedWithQueued(t)
	code, stdout, errOut := ql(t, "runs", "list", "--data-dir", dir)
	if code != 0 || !strings.Contains(errOut, "was handed over") || !strings.Contains(errOut, "its 1 queued Run stays queued here, and runs only after `ql-edge serve --take-back --data-dir") ||
		strings.Contains(errOut, "start one with") {
		t.Fatalf("runs list on a handed-over database: exit %d %q %q; want its queued Run said to wait for a take-back", code, stdout, errOut)
	}
}

// `apply --adopt-state` run again after the target's schedule ran from
// the adopted position says that trigger is adopted at this position
// already and succeeds; it is not refused as a move of a schedule that
// runs there.
func TestAdoptingTheSameStateAgainAfterTheScheduleRanSaysItIsAdoptedAlready(t *testing.T) {
	t.Parallel()
	src, _ := handedSource(t)
	out := filepath.Join(t.TempDir(), "handover")
	if code, stdout, errOut := ql(t, "export", "--all", "--with-state", "-o", out, "--data-dir", src); code != 0 {
		t.Fatalf("export --all --with-state: exit %d %q %q", code, stdout, errOut)
	}
	dst := installedDir(t)
	args := []string{"apply", "-f", filepath.Join(out, "moving.yaml"), "--adopt-state", filepath.Join(out, cli.HandoverStateFile), "--data-dir", dst}
	if code, stdout, errOut := ql(t, args...); code != 0 {
		t.Fatalf("apply --adopt-state: exit %d %q %q", code, stdout, errOut)
	}
	if code, stdout, errOut := ql(t, "projects", "resume", "moving", "--data-dir", dst); code != 0 {
		t.Fatalf("projects resume: exit %d %q %q", code, stdout, errOut)
	}
	b, err := server.OpenBackend(t.Context(), server.LayoutOf(dst).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := schedule.Round(t.Context(), b.Store, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if ran := readSchedule(t, dst, "hourly"); !ran.cursor.Valid || ran.cursor.Int64 <= time.Now().Add(-time.Hour).UnixMilli() {
		t.Fatalf("hourly after a round: %+v; want its schedule run on from the adopted position", ran)
	}
	code, stdout, errOut := ql(t, args...)
	if code != 0 || !strings.Contains(stdout, "trigger moving/hourly: unchanged, already adopted at this position") {
		t.Fatalf("apply --adopt-state after the schedule ran: exit %d %q %q; want hourly adopted already, exit 0", code, stdout, errOut)
	}
}

// The Runs a database held queued when it was handed over were admitted
// occurrences: `serve --take-back` runs them, however late, and its
// warning says how many and how long the oldest waited.
func TestATakeBackRunsTheRunsQueuedAtTheHandoverAndSaysHowManyAndHowLate(t *testing.T) {
	t.Parallel()
	dir, _ := handedWithQueued(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql-edge"), []string{"serve", "--take-back", "--data-dir", dir}, &out, &errOut)
	}()
	waitForSucceededRun(t, server.LayoutOf(dir).DB, exit, &errOut)
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve --take-back exited %d: %s", code, errOut.String())
	}
	log := errOut.String()
	if !strings.Contains(log, "the Run it held queued runs now, queued ") || !strings.Contains(log, "queued_runs=1") || !strings.Contains(log, "oldest_queued_for_ms=") {
		t.Fatalf("the take-back's log:\n%s\nwant it to say that the 1 queued Run runs now, and how late", log)
	}
}

// `export --all --with-state -o DIR` into a directory an earlier handover
// filled is refused before anything is marked or written (exit 4,
// export_dir_not_empty), saying what to do; --force overwrites it.
func TestAnExportIntoAnEarlierHandoversDirectoryIsRefusedUnlessForced(t *testing.T) {
	t.Parallel()
	dir, out := handedWithQueued(t)
	state := filepath.Join(out, cli.HandoverStateFile)
	before, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	other := installedDir(t)
	applyDefs(t, other, handoverFile)
	code, stdout, errOut := ql(t, "export", "--all", "--with-state", "-o", out, "--data-dir", other)
	if code != 4 || !strings.Contains(errOut, "holds the state file "+cli.HandoverStateFile+" of an earlier handover") || !strings.Contains(errOut, "--force") {
		t.Fatalf("export into an earlier handover's directory: exit %d %q %q; want exit 4 naming the state file and --force", code, stdout, errOut)
	}
	if after, err := os.ReadFile(state); err != nil || string(after) != string(before) {
		t.Fatalf("the refused export changed the state file (%v)", err)
	}
	var marks int
	if err := readOnlyDB(t, other).QueryRowContext(t.Context(), `SELECT count(*) FROM handover`).Scan(&marks); err != nil || marks != 0 {
		t.Fatalf("the refused export marked its database handed over: %d marks (%v)", marks, err)
	}
	if code, stdout, errOut := ql(t, "export", "--all", "--with-state", "-o", out, "--force", "--data-dir", other); code != 0 {
		t.Fatalf("export --force: exit %d %q %q", code, stdout, errOut)
	}
	if code, stdout, errOut := ql(t, "export", "--all", "-o", t.TempDir(), "--data-dir", dir); code != 0 {
		t.Fatalf("export into an empty directory: exit %d %q %q", code, stdout, errOut)
	}
}
