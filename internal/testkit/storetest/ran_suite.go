package storetest

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A finished Run's RanMs adds up its attempts' own run times, each from
// its start to its end, and leaves out its queue and the backoff between
// its attempts; the listing gives the Run's page's figure, and a Run that
// has not finished has none, a retry's wait neither.
func testRanAddsUpItsAttempts(t *testing.T, f Fixture) {
	d := retryDefs(t, f, "retry-ran", task.RetryPolicy{MaxAttempts: 2, BackoffMs: retryBackoff.Milliseconds(), On: []string{task.RetryOnFailed}}, trigger.OverlapAllow)
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	if finished, err := f.Finish(t.Context(), id, run.AttemptFailed); err != nil || finished != "" {
		t.Fatalf("attempt 1 failed: reports %q, %v; want no finish (a retry follows)", finished, err)
	}
	if r := runByID(t, f, id); r.State != run.RetryWait || r.RanMs != nil {
		t.Fatalf("a Run waiting to retry is %s and ran %v; want retry_wait and no figure before it finishes", r.State, r.RanMs)
	}
	f.Elapse(retryBackoff + 50*time.Millisecond)
	requeue(t, f, 1)
	if finished, err := f.Finish(t.Context(), id, run.AttemptSucceeded); err != nil || finished != run.Succeeded {
		t.Fatalf("attempt 2 succeeded: reports %q, %v; want the Run finished succeeded", finished, err)
	}
	rd := runDetail(t, f, id)
	var want int64
	for _, a := range rd.Attempts {
		if a.StartedAtMs == nil || a.FinishedAtMs == nil {
			t.Fatalf("attempt %d has not both started and ended: %+v", a.Number, a)
		}
		want += *a.FinishedAtMs - *a.StartedAtMs
	}
	r := rd.Run
	if r.RanMs == nil || *r.RanMs != want || *r.RanMs > *r.FinishedAtMs-r.CreatedAtMs-retryBackoff.Milliseconds() {
		t.Fatalf("the finished Run ran %v, want %d ms (its attempts' own times), at least the backoff short of its %d ms in all", r.RanMs, want, *r.FinishedAtMs-r.CreatedAtMs)
	}
	list, _, err := f.Runs.RunList(t.Context(), run.ListParams{TriggerID: d.Trigger.TriggerID})
	if err != nil || len(list) != 1 || list[0].RanMs == nil || *list[0].RanMs != want {
		t.Fatalf("the listing gives %+v (%v); want the Run with RanMs %d", list, err, want)
	}
}
