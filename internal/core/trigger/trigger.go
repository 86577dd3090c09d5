// Package trigger is the Trigger aggregate: a head bound forever to one task,
// plus immutable revisions that pin an exact task revision and carry the
// `qinglong/cron@v1` spec.
package trigger

import (
	"time"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/digest"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// SpecKind names the only trigger kind so far.
const SpecKind = "qinglong/cron@v1"

// MisfirePolicy says what a late occurrence does.
type MisfirePolicy string

const (
	// Skip means an occurrence later than the grace period is dropped and the
	// cursor jumps past now.
	Skip MisfirePolicy = "skip"
	// FireOnce means the oldest missed occurrence is admitted once; the backlog is
	// never replayed.
	FireOnce MisfirePolicy = "fire_once"
)

// Cron is the `qinglong/cron@v1` spec. The time policies after
// MisfirePolicy are optional; their zero values mean "absent", and an
// absent policy is left out of the content digest, so a revision written
// before they existed keeps its digest.
type Cron struct {
	Expression    string
	Timezone      string
	MisfirePolicy MisfirePolicy
	// JitterMs delays each occurrence by a deterministic offset in
	// [0, JitterMs) (schedule.JitterOffset); 0 is no jitter.
	JitterMs int64
	// StartAtMs and EndAtMs bound the occurrences the trigger has
	// (inclusive, Unix milliseconds); 0 is unbounded.
	StartAtMs int64
	EndAtMs   int64
	// CatchUpWindowMs, when HasCatchUpWindow, is how old a missed
	// occurrence may be and still be admitted under fire_once.
	CatchUpWindowMs  int64
	HasCatchUpWindow bool
	// Overlap says what an occurrence does while an earlier Run of the
	// trigger is unfinished; "" is OverlapAllow.
	Overlap OverlapPolicy
}

// OverlapPolicy says what an occurrence (or a run-now request) does while
// an earlier Run of the same trigger has not finished.
type OverlapPolicy string

// The overlap policies. Allow is stored and digested as "", so a revision
// that does not name one keeps its digest.
const (
	// OverlapAllow admits the occurrence whatever runs (the default).
	OverlapAllow OverlapPolicy = ""
	// OverlapSkip passes the occurrence over (ledger reason overlap).
	OverlapSkip OverlapPolicy = "skip"
	// OverlapQueueOne admits the occurrence as a Run that waits for the
	// unfinished one to finish; with one waiting already, it passes the
	// occurrence over.
	OverlapQueueOne OverlapPolicy = "queue_one"
	// OverlapCancelPrevious asks every unfinished Run of the trigger to
	// stop, then admits the occurrence as a Run that waits until they have
	// stopped.
	OverlapCancelPrevious OverlapPolicy = "cancel_previous"
)

// ParseOverlap reads an overlap policy as YAML spells it; "allow" is
// OverlapAllow.
func ParseOverlap(s string) (OverlapPolicy, bool) {
	switch s {
	case "", "allow":
		return OverlapAllow, true
	case string(OverlapSkip), string(OverlapQueueOne), string(OverlapCancelPrevious):
		return OverlapPolicy(s), true
	}
	return "", false
}

// The reasons of a trigger's refusals of its own (its fields' ranges and
// sets carry validate's), with the params their sentences may name.
const (
	// RefusalNoOccurrence is an expression that never fires: value.
	RefusalNoOccurrence qlerror.Reason = "trigger_no_occurrence"
	// RefusalEndNotAfterStart is an endAt not after startAt.
	RefusalEndNotAfterStart qlerror.Reason = "trigger_end_not_after_start"
	// RefusalCatchUpNotFireOnce is a catch-up window under a misfire
	// policy other than fire_once: value (the policy).
	RefusalCatchUpNotFireOnce qlerror.Reason = "trigger_catch_up_not_fire_once"
)

// MaxJitterMs caps jitter at one hour: jitter spreads the load of many
// triggers sharing a fire time over a short span; a longer delay is a
// different schedule, better written as one. It also bounds the work a
// catch-up decision does per occurrence (schedule.Decide).
const MaxJitterMs = 60 * 60 * 1000

// MaxCatchUpWindowMs caps the catch-up window at 366 days.
const MaxCatchUpWindowMs = 366 * 24 * 60 * 60 * 1000

// Spec is everything a trigger revision says, apart from identity.
type Spec struct {
	Name    string
	Enabled bool
	Cron    Cron
}

// Revision is one immutable published version of a trigger.
type Revision struct {
	TriggerID         string
	ProjectID         string
	TaskID            string
	Revision          int64
	TaskRevision      int64
	TaskContentDigest string
	Spec              Spec
	ContentDigest     string
	MutationID        string
	CreatedAtMs       int64
}

// Validate checks the spec, including that the expression parses and has at
// least one future occurrence from nowMs.
func (s Spec) Validate(nowMs int64) error {
	if err := validate.Name("trigger.name", s.Name); err != nil {
		return err
	}
	switch s.Cron.MisfirePolicy {
	case Skip, FireOnce:
	default:
		return qlerror.New(qlerror.Invalid, "trigger.cron.misfirePolicy: %q is not one of skip, fire_once", s.Cron.MisfirePolicy).
			Because(validate.RefusalNotOneOf, "field", "trigger.cron.misfirePolicy", "value", s.Cron.MisfirePolicy, "allowed", "skip, fire_once")
	}
	if err := s.Cron.validatePolicies(); err != nil {
		return err
	}
	sched, err := cron.Parse(s.Cron.Expression, s.Cron.Timezone)
	if err == nil {
		err = cron.CheckSteps(s.Cron.Expression)
	}
	if err != nil {
		return cron.Refusal("trigger.cron", err)
	}
	if _, ok := sched.Next(nowMs); !ok {
		return qlerror.New(qlerror.Invalid, "trigger.cron.expression: %q has no occurrence in the next years (e.g. 30 February); fix the day or month", s.Cron.Expression).
			Because(RefusalNoOccurrence, "value", s.Cron.Expression)
	}
	return nil
}

// NewRevision validates spec and returns the revision `expected+1` pinned to
// the given task revision. nowMs is only used to check that the expression
// can fire at all; the store stamps the creation time.
func NewRevision(projectID, triggerID, taskID string, taskRevision int64, taskDigest string, expected int64, mutationID string, spec Spec, nowMs int64) (Revision, error) {
	for field, id := range map[string]string{"trigger.projectId": projectID, "trigger.id": triggerID, "trigger.taskId": taskID} {
		if err := ids.Validate(field, id); err != nil {
			return Revision{}, qlerror.Wrap(qlerror.Invalid, err, "invalid trigger")
		}
	}
	if taskRevision < 1 || !digest.Valid(taskDigest) {
		return Revision{}, qlerror.New(qlerror.Invalid, "trigger: must pin a published task revision and its content digest")
	}
	if expected < 0 {
		return Revision{}, qlerror.New(qlerror.Invalid, "trigger.expectedRevision: %d must be 0 (create) or the current revision", expected)
	}
	if err := validate.MutationID("trigger.mutationId", mutationID); err != nil {
		return Revision{}, err
	}
	if err := spec.Validate(nowMs); err != nil {
		return Revision{}, err
	}
	return Revision{
		TriggerID:         triggerID,
		ProjectID:         projectID,
		TaskID:            taskID,
		Revision:          expected + 1,
		TaskRevision:      taskRevision,
		TaskContentDigest: taskDigest,
		Spec:              spec,
		ContentDigest:     ContentDigest(projectID, triggerID, taskID, taskRevision, taskDigest, spec),
		MutationID:        mutationID,
	}, nil
}

// ContentDigest hashes every semantic field, including the pinned task
// fence, so re-pinning a trigger to a new task revision is a new revision.
func ContentDigest(projectID, triggerID, taskID string, taskRevision int64, taskDigest string, s Spec) string {
	b := digest.New(SpecKind).
		String("projectId", projectID).
		String("triggerId", triggerID).
		String("taskId", taskID).
		Int("taskRevision", taskRevision).
		String("taskContentDigest", taskDigest).
		String("name", s.Name).
		Bool("enabled", s.Enabled).
		String("expression", s.Cron.Expression).
		String("timezone", s.Cron.Timezone).
		String("misfirePolicy", string(s.Cron.MisfirePolicy))
	s.Cron.digestPolicies(b)
	return b.Sum()
}

// digestPolicies adds the time policies that are set, each under its own
// name, so an absent one changes nothing.
func (c Cron) digestPolicies(b *digest.Builder) {
	if c.JitterMs != 0 {
		b.Int("jitterMs", c.JitterMs)
	}
	if c.StartAtMs != 0 {
		b.Int("startAtMs", c.StartAtMs)
	}
	if c.EndAtMs != 0 {
		b.Int("endAtMs", c.EndAtMs)
	}
	if c.HasCatchUpWindow {
		b.Int("catchUpWindowMs", c.CatchUpWindowMs)
	}
	if c.Overlap != OverlapAllow {
		b.String("overlap", string(c.Overlap))
	}
}

// validatePolicies checks the time policies' ranges and combinations.
func (c Cron) validatePolicies() error {
	switch {
	case c.JitterMs < 0 || c.JitterMs > MaxJitterMs:
		return validate.DurationOutOfRangeError("trigger.cron.jitter", time.Duration(c.JitterMs)*time.Millisecond, 0, MaxJitterMs*time.Millisecond)
	case c.StartAtMs < 0:
		return qlerror.New(qlerror.Invalid, "trigger.cron.startAt: must not be before 1970-01-01T00:00:00Z")
	case c.EndAtMs < 0:
		return qlerror.New(qlerror.Invalid, "trigger.cron.endAt: must not be before 1970-01-01T00:00:00Z")
	case c.EndAtMs != 0 && c.EndAtMs <= c.StartAtMs:
		return qlerror.New(qlerror.Invalid, "trigger.cron.endAt: must be after startAt").Because(RefusalEndNotAfterStart)
	case !c.HasCatchUpWindow && c.CatchUpWindowMs != 0:
		return qlerror.New(qlerror.Invalid, "trigger.cron.catchUpWindow: a window of %dms is given but not marked as set", c.CatchUpWindowMs)
	case c.HasCatchUpWindow && c.MisfirePolicy != FireOnce:
		return qlerror.New(qlerror.Invalid, "trigger.cron.catchUpWindow: only applies to misfire: fire_once (misfire: %s passes every late occurrence)", c.MisfirePolicy).
			Because(RefusalCatchUpNotFireOnce, "value", c.MisfirePolicy)
	case c.Overlap != OverlapAllow && c.Overlap != OverlapSkip && c.Overlap != OverlapQueueOne && c.Overlap != OverlapCancelPrevious:
		return qlerror.New(qlerror.Invalid, "trigger.cron.overlap: %q is not one of allow, skip, queue_one, cancel_previous", c.Overlap).
			Because(validate.RefusalNotOneOf, "field", "trigger.cron.overlap", "value", c.Overlap, "allowed", "allow, skip, queue_one, cancel_previous")
	case c.HasCatchUpWindow && (c.CatchUpWindowMs < 0 || c.CatchUpWindowMs > MaxCatchUpWindowMs):
		return validate.DurationOutOfRangeError("trigger.cron.catchUpWindow", time.Duration(c.CatchUpWindowMs)*time.Millisecond, 0, MaxCatchUpWindowMs*time.Millisecond)
	}
	return nil
}

// VerifyDigest recomputes the content digest.
func (r Revision) VerifyDigest() error {
	got := ContentDigest(r.ProjectID, r.TriggerID, r.TaskID, r.TaskRevision, r.TaskContentDigest, r.Spec)
	if got != r.ContentDigest {
		return qlerror.New(qlerror.Internal, "trigger %s revision %d: content digest mismatch (stored %s, computed %s)", r.TriggerID, r.Revision, r.ContentDigest, got)
	}
	return nil
}

// Schedule parses the revision's cron spec.
func (r Revision) Schedule() (*cron.Schedule, error) {
	return cron.Parse(r.Spec.Cron.Expression, r.Spec.Cron.Timezone)
}
