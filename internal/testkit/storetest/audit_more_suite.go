package storetest

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// statusFile is a definitions file of project name saying only its
// status.
func statusFile(t *testing.T, name string, status project.Status) *apply.Document {
	t.Helper()
	return parse(t, name+".yaml", []byte("project: "+name+"\nstatus: "+string(status)+"\n"))
}

// applyAs applies doc as actor, as `ql apply`, the API and the console do.
func applyAs(t *testing.T, f Fixture, doc *apply.Document, actor string) error {
	t.Helper()
	_, err := apply.Publish(t.Context(), f.Service, doc, ids.New, apply.Options{Actor: actor})
	return err
}

// testAuditProjectStatus: an apply that archives a project, or makes it
// active again, records who applied it, the project and the change, in
// the publish's transaction; an apply that leaves the status as it is,
// or creates a project, records nothing of it.
func testAuditProjectStatus(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	steps := []struct {
		status project.Status
		actor  string
	}{
		{project.Archived, "api:deploy@192.0.2.4"},
		{project.Archived, "root"},
		{project.Active, "console:user:lead@192.0.2.5"},
	}
	for _, s := range steps {
		if err := applyAs(t, f, statusFile(t, "alpha", s.status), s.actor); err != nil {
			t.Fatalf("apply status %s as %s: %v", s.status, s.actor, err)
		}
	}
	if err := applyAs(t, f, statusFile(t, "beta", project.Archived), "root"); err != nil {
		t.Fatalf("apply a new project archived: %v", err)
	}
	got := auditAll(t, f, audit.Query{})
	want := []string{
		"project.activated console:user:lead@192.0.2.5 project alpha alpha status archived → active",
		"project.archived api:deploy@192.0.2.4 project alpha alpha status active → archived",
	}
	if lines := auditLines(got); !slices.Equal(lines, want) {
		t.Fatalf("trail %q; want %q (an apply that changes no status, or creates a project, records nothing of it)", lines, want)
	}
	if got[0].ObjectID != d.Project.ID || got[1].ObjectID != d.Project.ID || got[0].AtMs < got[1].AtMs {
		t.Fatalf("records %+v; want project alpha's id %s, newest first", got, d.Project.ID)
	}
}

// testAuditUserNoop: disabling a disabled account, or enabling an
// enabled one, changes nothing and records nothing, and says so; an
// enabled account keeps its password.
func testAuditUserNoop(t *testing.T, f Fixture) {
	ctx := t.Context()
	createUser(t, f, "kim", account.Operator)
	steps := []struct {
		what    string
		change  func() (bool, error)
		changed bool
	}{
		{"enable an enabled account", func() (bool, error) { return f.Users.UserEnable(ctx, "kim", hashB, "root") }, false},
		{"disable it", func() (bool, error) { return f.Users.UserDisable(ctx, "kim", "root") }, true},
		{"disable it again", func() (bool, error) { return f.Users.UserDisable(ctx, "kim", "lead") }, false},
		{"enable it", func() (bool, error) { return f.Users.UserEnable(ctx, "kim", hashB, "root") }, true},
		{"enable it again", func() (bool, error) { return f.Users.UserEnable(ctx, "kim", hashA, "lead") }, false},
	}
	for _, s := range steps {
		changed, err := s.change()
		if err != nil || changed != s.changed {
			t.Fatalf("%s: changed %v, %v; want changed %v", s.what, changed, err, s.changed)
		}
	}
	_, hash, err := f.UserAuth.UserCredentials(ctx, "kim")
	if err != nil || hash != hashB {
		t.Fatalf("kim's hash %q, %v; want the one its enable gave (%q), not the creation's a second enable carried", hash, err, hashB)
	}
	got := auditAll(t, f, audit.Query{})
	want := []string{
		"user.enabled root user kim  ",
		"user.disabled root user kim  ",
		"user.created unknown user kim  role operator",
	}
	if lines := auditLines(got); !slices.Equal(lines, want) {
		t.Fatalf("trail %q; want %q", lines, want)
	}
	_, err = f.Users.UserDisable(ctx, "nobody", "root")
	requireCode(t, err, qlerror.NotFound, "disabling a missing account")
}
