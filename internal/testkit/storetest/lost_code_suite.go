package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A lost Run is read, in a listing and alone, with how it was lost: its
// last attempt's error code, from the read itself, so `runs list` says it
// without reading each lost Run again. A Run in any other state carries
// none, a failed one's attempt code included.
func testLostRunErrorCode(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	lost := admitNow(t, f, d.Trigger.TriggerID, 3_000)
	if _, err := f.Finish(t.Context(), lost, run.AttemptLost); err != nil {
		t.Fatalf("lose the Run: %v", err)
	}
	failed := admitNow(t, f, d.Trigger.TriggerID, 2_000)
	if _, err := f.Finish(t.Context(), failed, run.AttemptFailed); err != nil {
		t.Fatalf("fail the Run: %v", err)
	}
	queued := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	got, err := f.Runs.RunGet(t.Context(), lost)
	if err != nil {
		t.Fatal(err)
	}
	code := got.Attempts[len(got.Attempts)-1].ErrorCode
	if got.Run.State != run.Lost || code == "" || got.Run.ErrorCode != code {
		t.Fatalf("the lost Run read alone: %s with error code %q, its last attempt's %q; want lost with its attempt's code", got.Run.State, got.Run.ErrorCode, code)
	}
	list, _, err := f.Runs.RunList(t.Context(), run.ListParams{TriggerID: d.Trigger.TriggerID, Limit: run.MaxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{lost: code, failed: "", queued: ""}
	for _, r := range list {
		if w, ok := want[r.ID]; !ok || r.ErrorCode != w {
			t.Errorf("listed Run %s (%s): error code %q; want %q", r.ID, r.State, r.ErrorCode, w)
		}
		delete(want, r.ID)
	}
	if len(want) != 0 {
		t.Errorf("the listing left out %v", want)
	}
}
