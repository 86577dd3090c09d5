package sqlitestore

import "testing"

// The newest recorded time is the latest write of an enabled trigger's
// schedule row with a cursor, or the time of the last run event appended,
// whichever is later; a disabled trigger's row does not count (no check
// would move it), and an empty database recorded nothing.
func TestTheNewestRecordedTimeIsTheLatestScheduleWriteOrTheLastRunEvent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	newest := func() int64 {
		t.Helper()
		ms, err := e.store.ClockNewestRecordedMs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	if got := newest(); got != 0 {
		t.Fatalf("an empty database's newest recorded time is %d, want 0", got)
	}
	ran := e.defs(t, "ran", everyMinute)
	off := e.defs(t, "off", everyMinute)
	e.initialiseAll(t)
	before := e.clock.ms.Load()
	e.admit(t, ran.Trigger.TriggerID)
	after := e.clock.ms.Load()
	// within is whether ms is a reading the admission took.
	within := func(ms int64) bool { return ms > before && ms <= after }
	if got := newest(); !within(got) {
		t.Fatalf("newest recorded time %d after an admission between %d and %d", got, before, after)
	}
	later := after + 3_600_000
	if err := e.tamper(ctx, `UPDATE trigger_schedules SET enabled = 0, updated_at_ms = ? WHERE trigger_id = ?`, later+1, off.Trigger.TriggerID); err != nil {
		t.Fatal(err)
	}
	if got := newest(); !within(got) {
		t.Fatalf("newest recorded time %d: a disabled trigger's row counted", got)
	}
	if err := e.tamper(ctx, `UPDATE trigger_schedules SET updated_at_ms = ? WHERE trigger_id = ?`, later, ran.Trigger.TriggerID); err != nil {
		t.Fatal(err)
	}
	if got := newest(); got != later {
		t.Fatalf("newest recorded time %d, want the schedule row's write at %d", got, later)
	}
	if err := e.tamper(ctx, `UPDATE trigger_schedules SET updated_at_ms = ? WHERE trigger_id = ?`, 1, ran.Trigger.TriggerID); err != nil {
		t.Fatal(err)
	}
	if got := newest(); !within(got) {
		t.Fatalf("newest recorded time %d, want the last run event's, between %d and %d", got, before, after)
	}
}
