package schedule

import "context"

// TriggerActivity is what per-trigger monitoring reads of one trigger, in
// the store's time (the database clock in the cluster, the injected clock
// on SQLite). A nil time is one the store holds nothing for.
type TriggerActivity struct {
	Project, Trigger string
	// LastRunAtMs is when the trigger's newest Run (any cause: its
	// schedule, a manual run, a backfill, a rerun) was created; nil when
	// the store holds no Run of it.
	LastRunAtMs *int64
	// LastSuccessAtMs is when the trigger's latest succeeded Run finished;
	// nil when the store holds none (it never succeeded, or retention
	// deleted every Run that did).
	LastSuccessAtMs *int64
	// NextFireAtMs is the schedule's next fire time; nil while the
	// trigger is paused or its schedule not initialised (or ended).
	NextFireAtMs *int64
	// Paused says the trigger is paused, on its own or with its project:
	// it has no next fire and no new Run from its schedule, which alerts
	// on staleness leave out.
	Paused bool
}

// TriggerActivitySnapshot is one read of per-trigger monitoring.
type TriggerActivitySnapshot struct {
	// Triggers are the enabled triggers of active projects, ordered by
	// project name then trigger name, at most the read's limit.
	Triggers []TriggerActivity
	// Eligible counts all those triggers, up to MonitorLimit (a value of
	// MonitorLimit means at least that many); 0 when Triggers is empty.
	Eligible int
}

// TriggerActivityReader reads per-trigger monitoring in one bounded read:
// at most limit (1–MonitorLimit) triggers, each costing a few index
// probes however many Runs it has.
type TriggerActivityReader interface {
	TriggerActivity(ctx context.Context, limit int) (TriggerActivitySnapshot, error)
}
