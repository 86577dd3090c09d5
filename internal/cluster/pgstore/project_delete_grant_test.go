package pgstore

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// A cluster upgraded without re-applying the roles has a maintenance role
// that may not append the record of a project's deletion. Its replicas
// stay ready; a deletion deletes nothing and names `ql db roles`, and
// once that gives the grant the deletion goes through, recorded.
func TestAProjectDeletionWithoutTheAuditGrantDeletesNothingAndNamesDbRoles(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	now, err := s.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	d := s.publishCron(t, "old", storetest.QuietCron(now))
	d.project.Status = project.Archived
	if _, err := s.admin.ProjectSave(t.Context(), d.project); err != nil {
		t.Fatal(err)
	}
	s.exec(t, "REVOKE INSERT ON qinglong.audit_log FROM "+quoteIdent(s.roles.Maintenance))
	requireReadiness(t, s.env, RoleMaintenance, "")
	requireReadiness(t, s.env, RoleRuntime, "")
	m := s.openMaintenance(t)
	_, err = m.ProjectDelete(t.Context(), project.DeleteRequest{Project: "old", Actor: "ops"})
	if !qlerror.Is(err, qlerror.PermissionDenied) || !strings.Contains(err.Error(), "run `ql db roles` (as a superuser) to give it INSERT on audit_log") {
		t.Fatalf("deletion without the grant: %v; want permission denied naming `ql db roles`", err)
	}
	if _, err := s.admin.ProjectByName(t.Context(), "old"); err != nil {
		t.Fatalf("the project after the refused deletion: %v; want it kept", err)
	}

	if err := EnsureRoles(t.Context(), s.db.URL, RolesConfig{Prefix: s.prefix()}); err != nil {
		t.Fatalf("re-applying the roles: %v", err)
	}
	if _, err := m.ProjectDelete(t.Context(), project.DeleteRequest{Project: "old", Actor: "ops"}); err != nil {
		t.Fatalf("deletion after `ql db roles`: %v", err)
	}
	page, err := s.runtime.AuditList(t.Context(), audit.Query{Action: audit.ProjectDeleted})
	if err != nil || len(page.Records) != 1 || page.Records[0].Actor != "ops" || page.Records[0].ObjectID != d.project.ID {
		t.Fatalf("trail %+v, %v; want the one deletion, by ops, of project %s", page.Records, err, d.project.ID)
	}
}
