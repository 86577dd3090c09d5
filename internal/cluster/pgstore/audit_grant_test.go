package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// A cluster upgraded without re-applying the roles has a runtime role
// that may append to the audit trail but not read it. Its replicas stay
// ready, and a trigger's detail read as that role is whole but for the
// trail, which it says it could not read instead of failing the view or
// passing an empty trail off as a trigger nobody paused. `ql db roles`
// gives the grant back.
func TestATriggerDetailWithoutTheAuditGrantIsWholeAndSaysTheTrailIsUnreadable(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	now, err := s.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	d := s.publishCron(t, "audited", storetest.QuietCron(now))
	id := d.trigger.TriggerID
	if _, err := s.admin.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: id, Pause: true, Note: "db upgrade", Actor: "ops"}); err != nil {
		t.Fatal(err)
	}
	s.exec(t, "REVOKE SELECT ON qinglong.trigger_schedule_audit FROM "+quoteIdent(s.roles.Runtime))
	requireReadiness(t, s.env, RoleRuntime, "")
	if _, err := s.runtime.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: id, Pause: false, Actor: "replica"}); err != nil {
		t.Fatalf("resuming without SELECT on the audit trail: %v; the runtime only appends to it", err)
	}
	det, err := s.runtime.TriggerDetail(t.Context(), id, 10)
	if err != nil {
		t.Fatalf("detail without SELECT on the audit trail: %v; want the rest of the detail", err)
	}
	if !det.AuditUnreadable || len(det.Audit) != 0 || det.Paused || det.TriggerID != id || det.NowMs == 0 {
		t.Fatalf("detail without SELECT on the audit trail: %+v; want it whole, resumed, with the trail marked unreadable", det)
	}

	if err := EnsureRoles(t.Context(), s.db.URL, RolesConfig{Prefix: s.prefix()}); err != nil {
		t.Fatalf("re-applying the roles: %v", err)
	}
	det, err = s.runtime.TriggerDetail(t.Context(), id, 10)
	want := []schedule.AuditRecord{{Action: "resume", Actor: "replica"}, {Action: "pause", Actor: "ops", Note: "db upgrade"}}
	if err != nil || det.AuditUnreadable || len(det.Audit) != len(want) {
		t.Fatalf("detail after `ql db roles`: %+v (%v); want the trail readable with its %d records", det, err, len(want))
	}
	for i, a := range det.Audit {
		if a.Action != want[i].Action || a.Actor != want[i].Actor || a.Note != want[i].Note {
			t.Fatalf("audit record %d is %+v, want %+v (newest first)", i, a, want[i])
		}
	}
}

// Readiness lets only the missing audit read pass: any other missing
// grant, and any extra one, is still drift.
func TestReadinessAcceptsOnlyTheLaggingAuditReadGrant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.exec(t, "REVOKE SELECT ON qinglong.trigger_schedule_audit FROM "+quoteIdent(e.roles.Runtime))
	requireReadiness(t, e, RoleRuntime, "")
	e.exec(t, "REVOKE INSERT ON qinglong.trigger_schedule_audit FROM "+quoteIdent(e.roles.Runtime))
	requireReadiness(t, e, RoleRuntime, CodePrivilegeDrift)
	e.exec(t, "GRANT INSERT ON qinglong.trigger_schedule_audit TO "+quoteIdent(e.roles.Runtime))
	e.exec(t, "GRANT UPDATE ON qinglong.trigger_schedule_audit TO "+quoteIdent(e.roles.Runtime))
	requireReadiness(t, e, RoleRuntime, CodePrivilegeDrift)
}
