package storetest

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Run that failed, timed out or was lost is read, in a listing and
// alone, with how it ended: its last attempt's error code and exit code,
// from the read itself, so `runs list` says it without reading each Run
// again. A Run in any other state carries neither.
func testEndedRunErrorCode(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	ended := map[string]run.AttemptState{}
	for i, end := range []run.AttemptState{run.AttemptLost, run.AttemptFailed, run.AttemptTimedOut, run.AttemptSucceeded} {
		id := admitNow(t, f, d.Trigger.TriggerID, int64(5_000-i*1_000))
		if _, err := f.Finish(t.Context(), id, end); err != nil {
			t.Fatalf("end the Run %s: %v", end, err)
		}
		ended[id] = end
	}
	queued := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	want := map[string]run.Attempt{queued: {}}
	for id, end := range ended {
		got, err := f.Runs.RunGet(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		last := got.Attempts[len(got.Attempts)-1]
		if end == run.AttemptSucceeded {
			last = run.Attempt{}
		} else if last.ErrorCode == "" && last.ExitCode == nil {
			t.Fatalf("the %s Run's last attempt records neither an error code nor an exit code", end)
		}
		want[id] = last
		checkEndCodes(t, "read alone", got.Run, last)
	}
	list, _, err := f.Runs.RunList(t.Context(), run.ListParams{TriggerID: d.Trigger.TriggerID, Limit: run.MaxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		w, ok := want[r.ID]
		if !ok {
			t.Errorf("listed Run %s (%s) was not made by the test", r.ID, r.State)
			continue
		}
		checkEndCodes(t, "listed", r, w)
		delete(want, r.ID)
	}
	if len(want) != 0 {
		t.Errorf("the listing left out %v", want)
	}
}

// checkEndCodes fails t unless r carries the error and exit codes of a.
func checkEndCodes(t *testing.T, how string, r run.Run, a run.Attempt) {
	t.Helper()
	exit, wantExit := "none", "none"
	if r.ExitCode != nil {
		exit = fmt.Sprint(*r.ExitCode)
	}
	if a.ExitCode != nil {
		wantExit = fmt.Sprint(*a.ExitCode)
	}
	if r.ErrorCode != a.ErrorCode || exit != wantExit {
		t.Errorf("%s, the %s Run %s has error code %q and exit %s; want its last attempt's, %q and exit %s", how, r.State, r.ID, r.ErrorCode, exit, a.ErrorCode, wantExit)
	}
}
