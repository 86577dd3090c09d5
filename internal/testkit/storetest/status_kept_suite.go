package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// testAFileWithoutStatusLeavesTheProjectsStatus: nothing is changed by
// leaving a field out of a file, so a file without status: neither
// reactivates an archived project (its plan and its apply both say
// unchanged, and its changes are refused as any publish to an archived
// project is) nor archives an active one; only status: active
// reactivates, and the plan says from what to what.
func testAFileWithoutStatusLeavesTheProjectsStatus(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "small.yaml", []byte(small)))
	applyFile(t, f, parse(t, "archive.yaml", []byte("project: small\nstatus: archived\n")))
	bare := parse(t, "part.yaml", []byte("project: small\n"))
	planned, err := apply.Plan(t.Context(), f.Service, f.Service.Store, bare, ids.New)
	if err != nil || len(planned) != 1 || planned[0].Change != catalog.Unchanged {
		t.Fatalf("plan of a file without status for an archived project: %+v, %v; want the project unchanged", planned, err)
	}
	if res := applyFile(t, f, bare); res[0].Change != catalog.Unchanged {
		t.Fatalf("apply of a file without status for an archived project: %+v; want the project unchanged", res)
	}
	requireStatus(t, f, "small", project.Archived)
	changed := parse(t, "small.yaml", []byte(strings.Replace(small, "[/bin/true]}\n  - {name: b", "[/bin/false]}\n  - {name: b", 1)))
	if _, err := apply.Apply(t.Context(), f.Service, changed, ids.New); qlerror.ReasonOf(err) != catalog.RefusalProjectArchived {
		t.Fatalf("apply of a changed task without status to an archived project: %v; want %s", err, catalog.RefusalProjectArchived)
	}
	requireStatus(t, f, "small", project.Archived)

	active := parse(t, "active.yaml", []byte("project: small\nstatus: active\n"))
	planned, err = apply.Plan(t.Context(), f.Service, f.Service.Store, active, ids.New)
	if err != nil || len(planned) != 1 || planned[0].Change != catalog.Updated || !slices.Equal(planned[0].Fields, []string{"status archived → active"}) {
		t.Fatalf("plan of status: active for an archived project: %+v, %v; want it updated with status archived → active", planned, err)
	}
	applyFile(t, f, active)
	requireStatus(t, f, "small", project.Active)
	if res := applyFile(t, f, bare); res[0].Change != catalog.Unchanged {
		t.Fatalf("apply of a file without status for an active project: %+v; want the project unchanged", res)
	}
	requireStatus(t, f, "small", project.Active)
}

// requireStatus fails t unless project name has status.
func requireStatus(t *testing.T, f Fixture, name string, status project.Status) {
	t.Helper()
	if p, err := f.Catalog.ProjectByName(t.Context(), name); err != nil || p.Status != status {
		t.Fatalf("project %s: %+v, %v; want it %s", name, p, err, status)
	}
}
