package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

const jitterFile = `project: demo
tasks:
  - name: quick
    script: echo jittered
triggers:
  - name: every-second
    task: quick
    cron: "* * * * * *"
    timezone: UTC
    jitter: 800ms
    endAt: 2100-01-01T00:00:00Z
  - name: over
    task: quick
    cron: "0 * * * *"
    timezone: UTC
    startAt: 2020-01-01T00:00:00Z
    endAt: 2020-02-01T00:00:00Z
`

// A jittered trigger applied twice is one revision (its policies read back
// and digest as written), and served, each Run keeps its nominal second as
// its scheduled time, records the hash-derived jittered instant as its due
// time, and is admitted only once that instant has passed.
func TestAJitteredTriggerIsAdmittedAtItsJitteredInstantEndToEnd(t *testing.T) {
	t.Parallel()
	dir, db := serveDefs(t, jitterFile)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "again.yaml", jitterFile), "--data-dir", dir); code != 0 {
		t.Fatalf("second apply: %d %q %q", code, out, errOut)
	}
	code, out, errOut := ql(t, "triggers", "list", "-o", "json", "--data-dir", dir)
	var list struct {
		Triggers []struct {
			TriggerID string `json:"triggerId"`
			Revision  int64  `json:"revision"`
			Cron      struct {
				JitterMs int64 `json:"jitterMs"`
				EndAtMs  int64 `json:"endAtMs"`
			} `json:"cron"`
		} `json:"triggers"`
	}
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list.Triggers) != 2 {
		t.Fatalf("triggers list: %d %q %q (%v)", code, out, errOut, err)
	}
	tg := list.Triggers[0]
	if tg.Cron.JitterMs == 0 {
		tg = list.Triggers[1]
	}
	if tg.Revision != 1 || tg.Cron.JitterMs != 800 || tg.Cron.EndAtMs != 4_102_444_800_000 {
		t.Fatalf("trigger listed as %+v; want revision 1 after two identical applies, jitter 800ms, endAt 2100", tg)
	}
	// A trigger whose endAt has passed ends at its first decision and
	// says so.
	deadline := time.Now().Add(10 * time.Second)
	for _, out, _ = ql(t, "triggers", "list", "--data-dir", dir); !strings.Contains(out, "ended") && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		_, out, _ = ql(t, "triggers", "list", "--data-dir", dir)
	}
	if !strings.Contains(out, " ended ") {
		t.Fatalf("triggers list %q; want the trigger past its endAt shown as ended", out)
	}
	code, out, errOut = ql(t, "triggers", "show", "over", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "cursor     ended (past endAt)") || !strings.Contains(out, "policies   startAt 2020-01-01T00:00:00.000Z  endAt 2020-02-01T00:00:00.000Z") ||
		!strings.Contains(out, "(none: the trigger has ended)") {
		t.Fatalf("triggers show over: %d %q %q; want it ended, its bounds and no next fire time", code, out, errOut)
	}
	code, out, errOut = ql(t, "triggers", "show", "every-second", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "policies   jitter 800ms  endAt 2100-01-01T00:00:00.000Z") || !strings.Contains(out, "(due ") {
		t.Fatalf("triggers show every-second: %d %q %q; want its jitter and the jittered due times of its next fires", code, out, errOut)
	}
	id := runIn(t, db, "succeeded")
	code, out, errOut = ql(t, "runs", "show", id, "-o", "json", "--data-dir", dir)
	var detail struct {
		Run struct {
			ScheduledForMs int64  `json:"scheduledForMs"`
			DueAtMs        int64  `json:"dueAtMs"`
			CreatedAtMs    int64  `json:"createdAtMs"`
			IdempotencyKey string `json:"idempotencyKey"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(out), &detail); code != 0 || err != nil {
		t.Fatalf("runs show: %d %q %q (%v)", code, out, errOut, err)
	}
	r := detail.Run
	if r.ScheduledForMs%1000 != 0 || r.DueAtMs != schedule.FireAt(tg.TriggerID, r.ScheduledForMs, 800) ||
		r.IdempotencyKey != schedule.IdempotencyKey(tg.TriggerID, 1, r.ScheduledForMs) {
		t.Fatalf("run %+v; want a whole-second scheduled time, due at its jittered instant, keyed on the scheduled time", r)
	}
	if r.CreatedAtMs < r.DueAtMs {
		t.Fatalf("run admitted at %d, before its jittered due time %d", r.CreatedAtMs, r.DueAtMs)
	}
	if r.DueAtMs != r.ScheduledForMs {
		code, out, _ = ql(t, "runs", "show", id, "--data-dir", dir)
		if code != 0 || !strings.Contains(out, "due        ") {
			t.Fatalf("runs show %d %q; want the due time shown", code, out)
		}
	}
}
