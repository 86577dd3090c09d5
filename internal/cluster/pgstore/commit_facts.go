package pgstore

import (
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// commitFacts is what sqlCommitLock read under the row lock: the database
// time and every stored fact a ticket is verified against.
type commitFacts struct {
	NowMs int64
	TID   pgtype.TID

	ProjectID         string
	Revision          int64
	NextFireAtMs      *int64
	LastScheduledAtMs *int64
	StateVersion      int64
	// The row's claim; Valid is false for a NULL (no claim). Values, not
	// pointers: a pointer destination cost an allocation per column per
	// row of every page (claimHeld compares them).
	ClaimOwner       pgtype.Text
	ClaimToken       pgtype.UUID
	ClaimVersion     int64
	ClaimExpiresAtMs pgtype.Int8
	UpdatedAtMs      int64
	Paused           bool
	PausedAtMs       *int64
	ResumedAtMs      *int64

	ProjectStatus string

	HeadRevision int64
	HeadTaskID   string
	Trigger      trigger.Revision
	TriggerKind  string

	TaskHeadRevision int64
	Task             task.Revision

	// Execution is nil when the pinned remote_worker plan is missing.
	Execution *task.Execution

	// Unfinished are the trigger's unfinished Runs, read only when its
	// revision has an overlap policy.
	Unfinished []string
	// Waiting is the newest of them that has not started, read only under
	// queue_one ("" none).
	Waiting string

	// taskVerified and executionVerified: the page's lock already
	// verified the digests of Task and of Execution from the same stored
	// text (pageDefs); false leaves the check to the verification.
	taskVerified, executionVerified bool
}

// stored is what the shared snapshot verification compares the ticket with.
func (f commitFacts) stored() schedule.Stored {
	return schedule.Stored{
		ProjectStatus:       project.Status(f.ProjectStatus),
		TriggerHeadRevision: f.HeadRevision,
		TriggerHeadTaskID:   f.HeadTaskID,
		Trigger:             f.Trigger,
		TriggerKind:         f.TriggerKind,
		TaskHeadRevision:    f.TaskHeadRevision,
		Task:                f.Task,
		RowRevision:         f.Revision,
		StateVersion:        f.StateVersion,
		NextFireAtMs:        f.NextFireAtMs,
		Pause:               schedule.PauseSpanOf(f.Paused, f.PausedAtMs, f.ResumedAtMs),
		TaskDigestVerified:  f.taskVerified,
	}
}

// scanCommitFacts reads one row of sqlCommitLock.
func scanCommitFacts(row pgx.Row, triggerID string) (commitFacts, error) {
	s := newFactsScan(nil)
	var waiting pgtype.Text
	s.then(&s.f.Unfinished, &waiting)
	if err := s.scan(row, triggerID); err != nil {
		return commitFacts{}, err
	}
	s.f.Waiting = waiting.String
	return s.f, nil
}

// factsScan reads rows of a lock statement into f: the facts every lock
// statement reads, then the columns that follow them (then). Its
// destinations are made once and reused for every row of a page; defs,
// when not nil, shares the page's repeated texts (page_cols.go) and
// decodes and verifies each distinct stored definition of the page once.
type factsScan struct {
	f commitFacts

	policy                                              string
	pol                                                 policyCols
	labels, command, erCommand                          string
	erID, erProject, erTaskDigest, erExecutor, erDigest string
	noER, noOwner                                       bool
	defs                                                *pageDefs
	dest                                                []any
}

func newFactsScan(defs *pageDefs) *factsScan {
	s := &factsScan{defs: defs}
	f := &s.f
	text := func(dst *string) any { return &textCol{dst: dst, defs: defs} }
	json := func(dst *string) any { return &textCol{dst: dst, json: true, defs: defs} }
	id := func(dst *string) any { return &uuidCol{dst: dst, defs: defs} }
	// The execution revision is a LEFT JOIN: its id says whether there is
	// one, and its other columns are read only then.
	er := func(dst *string) any { return &textCol{dst: dst, null: new(bool), defs: defs} }
	s.dest = []any{&f.NowMs, &f.TID,
		id(&f.ProjectID), &f.Revision, &f.NextFireAtMs, &f.LastScheduledAtMs, &f.StateVersion,
		&textCol{dst: &f.ClaimOwner.String, null: &s.noOwner, defs: defs}, &f.ClaimToken, &f.ClaimVersion, &f.ClaimExpiresAtMs, &f.UpdatedAtMs,
		&f.Paused, &f.PausedAtMs, &f.ResumedAtMs,
		text(&f.ProjectStatus),
		&f.HeadRevision, id(&f.HeadTaskID),
		id(&f.Trigger.TaskID), &f.Trigger.TaskRevision, text(&f.Trigger.TaskContentDigest), &f.Trigger.Spec.Name, &f.Trigger.Spec.Enabled, text(&f.TriggerKind),
		text(&f.Trigger.Spec.Cron.Expression), text(&f.Trigger.Spec.Cron.Timezone), text(&s.policy), &f.Trigger.ContentDigest, &f.Trigger.CreatedAtMs,
		&s.pol.jitter, &s.pol.start, &s.pol.end, &s.pol.window, &s.pol.overlap,
		&f.TaskHeadRevision,
		id(&f.Task.ProjectID), text(&f.Task.Spec.Name), &f.Task.Spec.Enabled, json(&s.labels), json(&s.command), text(&f.Task.ContentDigest),
		&textCol{dst: &s.erID, null: &s.noER, defs: defs}, &uuidCol{dst: &s.erProject, null: new(bool), defs: defs},
		er(&s.erTaskDigest), er(&s.erExecutor), json(&s.erCommand), er(&s.erDigest)}
	return s
}

// then adds the destinations of the columns that follow the facts.
func (s *factsScan) then(extra ...any) { s.dest = append(s.dest, extra...) }

// scan reads one row into s.f (and the destinations then added), triggerID
// being the row's trigger.
func (s *factsScan) scan(row pgx.Row, triggerID string) error {
	s.f = commitFacts{}
	if err := row.Scan(s.dest...); err != nil {
		return err
	}
	f, defs := &s.f, s.defs
	f.ClaimOwner.Valid = !s.noOwner
	f.Trigger.TriggerID, f.Trigger.ProjectID, f.Trigger.Revision = triggerID, f.ProjectID, f.Revision
	f.Trigger.Spec.Cron.MisfirePolicy = trigger.MisfirePolicy(s.policy)
	s.pol.into(&f.Trigger.Spec.Cron)
	f.Task.TaskID, f.Task.Revision = f.Trigger.TaskID, f.Trigger.TaskRevision
	// Undecodable stored content leaves the spec empty, so the digest check
	// that follows fails closed.
	f.Task.Spec.Labels = defs.labelsOf(s.labels)
	f.Task.Spec.Command = defs.command(s.command)
	f.taskVerified = defs.taskVerified(f.Task, s.labels, s.command)
	if !s.noER {
		e := task.Execution{ID: s.erID, ProjectID: s.erProject, TaskID: f.Task.TaskID, TaskRevision: f.Task.Revision,
			TaskContentDigest: s.erTaskDigest, Executor: task.Executor(s.erExecutor), Digest: s.erDigest}
		e.Command = defs.command(s.erCommand)
		f.Execution, f.executionVerified = defs.execution(e, s.erCommand, f.Task.Revision, f.Task.ContentDigest)
	}
	return nil
}
