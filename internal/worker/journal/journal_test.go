package journal

import (
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A second worker on the same data directory refuses to start, naming the
// holder and what to do; once the first is gone, the directory is free.
func TestASecondWorkerOnTheSameDataDirIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Open(t.Context(), dir)
	if err == nil {
		second.Close()
		t.Fatal("a second journal opened a held data directory")
	}
	if !strings.Contains(err.Error(), "already uses the data directory") || !strings.Contains(err.Error(), "--data-dir") {
		t.Fatalf("refusal %q does not say what is wrong and what to do", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("the data directory stayed locked after its worker closed it: %v", err)
	}
	again.Close()
}

// A closed journal's data directory is free at once, even while another
// process still holds a copy of its lock file's descriptor, as one forked
// in the moment of the close does until it executes its program: a worker
// started right after on the directory is not refused.
func TestAClosedJournalsDirectoryIsFreeWhileAForkedProcessStillHoldsItsLockDescriptor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	// ExtraFiles gives the child the very open file description the lock
	// is on, which is what a fork copies.
	holder := exec.Command("sleep", "60")
	holder.ExtraFiles = []*os.File{first.lock}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = holder.Process.Kill()
		_ = holder.Wait()
	})
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("a worker starting after the first one closed its journal: %v; want it to open the journal", err)
	}
	again.Close()
}

// A launching or running record left by a crashed worker is abandoned,
// never handed back to be spawned, and cannot move on to running or done
// afterwards.
func TestALaunchingRecordIsAbandonedAfterACrashNeverResumed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _ := granted(t, dir, Granted{AttemptID: "a-launching", RunID: "r1"}, Granted{AttemptID: "a-running", RunID: "r2"}, Granted{AttemptID: "a-granted", RunID: "r3"})
	for _, id := range []string{"a-launching", "a-running"} {
		if err := j.Launching(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Running(t.Context(), "a-running", 4242, 1234); err != nil {
		t.Fatal(err)
	}
	// What a crash leaves: the file and no lock (the kernel drops it).
	j = reopen(t, j, dir)
	left, err := j.Recover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 3 || left[0].ID != "a-granted" || left[0].State != StateGranted || left[1].ID != "a-launching" || left[1].State != StateLaunching ||
		left[2].ID != "a-running" || left[2].Pid != 4242 || left[2].StartedAtMs != 1234 {
		t.Fatalf("recovery reported %+v; want the granted record, the launching one and the running one with its pid and start", left)
	}
	for _, id := range []string{"a-launching", "a-running", "a-granted"} {
		a, err := j.Get(t.Context(), id)
		if err != nil || a.State != StateAbandoned {
			t.Fatalf("%s after recovery: %+v, %v; want abandoned", id, a, err)
		}
		if err := j.Launching(t.Context(), id); err == nil {
			t.Fatalf("%s could be launched again after recovery", id)
		}
	}
	if again, err := j.Recover(t.Context()); err != nil || len(again) != 0 {
		t.Fatalf("a second recovery found %+v, %v; want nothing", again, err)
	}
}

// The journal and its lock are the worker's own: no other account on the
// machine may read the offer tokens.
func TestTheJournalIsOwnerOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/data"
	j, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	out, err := exec.Command("stat", "-c", "%a %n", dir, dir+"/"+FileName, dir+"/"+lockName).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if mode, _, _ := strings.Cut(line, " "); mode != "700" && mode != "600" {
			t.Errorf("%s; want owner-only", line)
		}
	}
}

// A grant the worker gave up before spawning it (its start was never
// acknowledged) that the replica released and offers again under a new
// offer can be launched; a replay of the same offer changes nothing, and a
// record that was launched is never granted again.
func TestAReleasedGrantOfferedAgainIsGrantedAfreshButALaunchedOneNever(t *testing.T) {
	t.Parallel()
	j, err := Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	offer := func() Offer {
		o, err := j.NewOffer(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	first := offer()
	if err := j.Answered(t.Context(), first, []Granted{{AttemptID: "gave-up", RunID: "r1"}, {AttemptID: "launched", RunID: "r2"}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Done(t.Context(), "gave-up", "start_failed"); err != nil {
		t.Fatal(err)
	}
	if err := j.Launching(t.Context(), "launched"); err != nil {
		t.Fatal(err)
	}
	if err := j.Running(t.Context(), "launched", 4242, 1_700_000_000_000); err != nil {
		t.Fatal(err)
	}
	if err := j.Done(t.Context(), "launched", "exited"); err != nil {
		t.Fatal(err)
	}
	if err := j.Answered(t.Context(), first, []Granted{{AttemptID: "gave-up", RunID: "r1"}}); err != nil {
		t.Fatal(err)
	}
	if a, err := j.Get(t.Context(), "gave-up"); err != nil || a.State != StateDone {
		t.Fatalf("after a replay of the same offer: %+v %v, want it still done", a, err)
	}
	second := offer()
	if err := j.Answered(t.Context(), second, []Granted{{AttemptID: "gave-up", RunID: "r1"}, {AttemptID: "launched", RunID: "r2"}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Launching(t.Context(), "gave-up"); err != nil {
		t.Fatalf("the grant offered again cannot be launched: %v", err)
	}
	if err := j.Launching(t.Context(), "launched"); err == nil {
		t.Fatal("a launched record was granted again and launched a second time")
	}
}

// A long-lived worker's journal stays small: an offer that granted nothing
// is not kept, finished records go after a week, the rest stays.
func TestTheJournalKeepsOnlyWhatCanStillMatter(t *testing.T) {
	t.Parallel()
	j, err := Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	empty, _ := j.NewOffer(t.Context())
	if err := j.Answered(t.Context(), empty, nil); err != nil {
		t.Fatal(err)
	}
	old, _ := j.NewOffer(t.Context())
	recent, _ := j.NewOffer(t.Context())
	if err := j.Answered(t.Context(), old, []Granted{{AttemptID: "a-old", RunID: "r"}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Answered(t.Context(), recent, []Granted{{AttemptID: "a-recent", RunID: "r"}, {AttemptID: "a-granted", RunID: "r"}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a-old", "a-recent"} {
		if err := j.Done(t.Context(), id, "exited"); err != nil {
			t.Fatal(err)
		}
	}
	weekAgo := nowMs() - keepDone.Milliseconds() - 1
	if _, err := j.db.Exec(`UPDATE attempts SET updated_at_ms = ? WHERE attempt_id = 'a-old'`, weekAgo); err != nil {
		t.Fatal(err)
	}
	if _, err := j.db.Exec(`UPDATE offers SET created_at_ms = ? WHERE offer_id = ?`, weekAgo, old.ID); err != nil {
		t.Fatal(err)
	}
	if err := j.Trim(t.Context()); err != nil {
		t.Fatal(err)
	}
	var offers []string
	rows, err := j.db.Query(`SELECT offer_id FROM offers ORDER BY offer_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		offers = append(offers, id)
	}
	rows.Close()
	if len(offers) != 1 || offers[0] != recent.ID {
		t.Fatalf("offers kept %v; want only the recent one (%s)", offers, recent.ID)
	}
	if _, err := j.Get(t.Context(), "a-old"); err == nil {
		t.Fatal("a week-old finished attempt was kept")
	}
	for _, id := range []string{"a-recent", "a-granted"} {
		if _, err := j.Get(t.Context(), id); err != nil {
			t.Fatalf("%s was removed: %v", id, err)
		}
	}
}

// The replica offers an attempt again when its grant expired before the
// start was acknowledged. The journal takes the new grant of a record that
// never launched, so the attempt can run; a record that launched is never
// made launchable again, so it is never spawned twice.
func TestAnAttemptOfferedAgainLaunchesOnlyIfItNeverLaunched(t *testing.T) {
	t.Parallel()
	j, err := Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	grant := func(ids ...string) {
		t.Helper()
		o, err := j.NewOffer(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var gs []Granted
		for _, id := range ids {
			gs = append(gs, Granted{AttemptID: id, RunID: "r-" + id})
		}
		if err := j.Answered(t.Context(), o, gs); err != nil {
			t.Fatal(err)
		}
	}
	grant("unstarted", "launched")
	if err := j.Done(t.Context(), "unstarted", "start_failed"); err != nil {
		t.Fatal(err)
	}
	if err := j.Launching(t.Context(), "launched"); err != nil {
		t.Fatal(err)
	}
	if err := j.Done(t.Context(), "launched", "succeeded"); err != nil {
		t.Fatal(err)
	}
	grant("unstarted", "launched")
	if err := j.Launching(t.Context(), "unstarted"); err != nil {
		t.Fatalf("an attempt offered again after an unacknowledged start cannot launch: %v", err)
	}
	if err := j.Launching(t.Context(), "launched"); err == nil {
		t.Fatal("an attempt that launched before was made launchable again")
	}
}

// A record left launching or running is recovered with the lease it ran
// under: its offer's token and the last lease version journaled, so the
// restarted worker can end it on the replica under that lease.
func TestARecoveredAttemptCarriesTheLeaseItRanUnder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, o := granted(t, dir, Granted{AttemptID: "a", RunID: "r", LeaseVersion: 1})
	if err := j.Launching(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	for _, v := range []int64{2, 3} {
		if err := j.Renewed(t.Context(), "a", v); err != nil {
			t.Fatal(err)
		}
	}
	j = reopen(t, j, dir)
	left, err := j.Recover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Token != o.Token || left[0].LeaseVersion != 3 {
		t.Fatalf("recovered %+v; want attempt a with its offer's token and lease version 3", left)
	}
	if err := j.Renewed(t.Context(), "a", 4); err == nil {
		t.Fatal("an abandoned attempt's lease version could still be journaled")
	}
}

// A grant an earlier process journaled and never launched is recovered
// with the lease it was granted under (its offer's token and the grant's
// lease version, or the one its acknowledged start answered), so the
// restarted worker can give it back under that lease; it is abandoned,
// never launched, unless the replica grants it again.
func TestAGrantNeverLaunchedIsRecoveredWithTheLeaseToGiveItBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, o := granted(t, dir, Granted{AttemptID: "g1", RunID: "r1", LeaseVersion: 1}, Granted{AttemptID: "g2", RunID: "r2", LeaseVersion: 1})
	if err := j.Renewed(t.Context(), "g2", 2); err != nil {
		t.Fatal(err)
	}
	j = reopen(t, j, dir)
	left, err := j.Recover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 2 || left[0].ID != "g1" || left[0].State != StateGranted || left[0].Token != o.Token || left[0].LeaseVersion != 1 ||
		left[1].ID != "g2" || left[1].State != StateGranted || left[1].Token != o.Token || left[1].LeaseVersion != 2 {
		t.Fatalf("recovered %+v; want g1 and g2 granted under their offer's token at versions 1 and 2", left)
	}
	if err := j.Launching(t.Context(), "g1"); err == nil {
		t.Fatal("a recovered grant could be launched without being granted again")
	}
	again, err := j.NewOffer(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Answered(t.Context(), again, []Granted{{AttemptID: "g1", RunID: "r1", LeaseVersion: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Launching(t.Context(), "g1"); err != nil {
		t.Fatalf("a recovered grant the replica granted again could not launch: %v", err)
	}
}

// A journal written before lease versions were journaled opens, and its
// records read version 1, every grant's.
func TestAJournalWithoutLeaseVersionsOpensWithVersionOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(schema, ",\n\tlease_version INTEGER NOT NULL DEFAULT 1", "", 1)
	if old == schema {
		t.Fatal("the test no longer finds the lease_version column in the schema")
	}
	if _, err := db.Exec(old); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO offers (offer_id, token, created_at_ms) VALUES ('o', 'tok', 1);
		INSERT INTO attempts (attempt_id, run_id, offer_id, state, launched, updated_at_ms) VALUES ('a', 'r', 'o', 'running', 1, 1);
		INSERT INTO attempts (attempt_id, run_id, offer_id, state, launched, updated_at_ms) VALUES ('b', 'r2', 'o', 'granted', 0, 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	j, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("a journal of an older worker did not open: %v", err)
	}
	defer j.Close()
	left, err := j.Recover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 2 || left[0].ID != "a" || left[0].Token != "tok" || left[0].LeaseVersion != 1 ||
		left[1].ID != "b" || left[1].State != StateGranted || left[1].Token != "tok" || left[1].LeaseVersion != 1 {
		t.Fatalf("recovered %+v; want running attempt a and granted attempt b, each with token tok at lease version 1", left)
	}
}

// An attempt this worker launched before, granted again (its replica's
// database lost the start, as one restored from an older backup does), is
// refused with ErrLaunchedBefore, which says the attempt ran here before,
// not that the journal cannot be written; one that never launched is
// not refused with it.
func TestALaunchRefusedBecauseItRanBeforeSaysSo(t *testing.T) {
	t.Parallel()
	j, err := Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	grant := func(id string) {
		t.Helper()
		o, err := j.NewOffer(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Answered(t.Context(), o, []Granted{{AttemptID: id, RunID: "r-" + id}}); err != nil {
			t.Fatal(err)
		}
	}
	grant("ran")
	if err := j.Launching(t.Context(), "ran"); err != nil {
		t.Fatal(err)
	}
	if err := j.Done(t.Context(), "ran", "succeeded"); err != nil {
		t.Fatal(err)
	}
	grant("ran")
	if err := j.Launching(t.Context(), "ran"); !errors.Is(err, ErrLaunchedBefore) {
		t.Fatalf("launching an attempt that ran here before: %v; want ErrLaunchedBefore", err)
	}
	if err := j.Launching(t.Context(), "never-granted"); err == nil || errors.Is(err, ErrLaunchedBefore) {
		t.Fatalf("launching an attempt never granted: %v; want a refusal that is not ErrLaunchedBefore", err)
	}
}

// granted opens a journal in dir with one offer, answered with grants.
func granted(t *testing.T, dir string, grants ...Granted) (*Journal, Offer) {
	t.Helper()
	j, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	o, err := j.NewOffer(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Answered(t.Context(), o, grants); err != nil {
		t.Fatal(err)
	}
	return j, o
}

// reopen closes j, as a crash leaves its file (the kernel drops the lock),
// and opens the journal in dir again; the reopened one is closed with the
// test.
func reopen(t *testing.T, j *Journal, dir string) *Journal {
	t.Helper()
	j.Close()
	again, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	return again
}
