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
	"github.com/qinglong/qinglong/internal/core/task"
)

// small is a project whose task b no trigger runs, in a file that names
// nothing in name order.
const small = `project: small
tasks:
  - {name: c, command: [/bin/true]}
  - {name: b, command: [/bin/true]}
  - {name: a, command: [/bin/true]}
triggers:
  - {name: z, task: c, cron: "0 3 * * *", timezone: UTC}
  - {name: y, task: a, cron: "0 4 * * *", timezone: UTC}
`

func testDefinitionsReadWhole(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "small.yaml", []byte(small)))
	d, err := f.Definitions.ProjectDefinitions(t.Context(), "small", 10)
	if err != nil {
		t.Fatal(err)
	}
	var tasks, triggers []string
	for _, r := range d.Tasks {
		tasks = append(tasks, r.Spec.Name)
	}
	for _, r := range d.Triggers {
		triggers = append(triggers, r.Spec.Name)
	}
	if d.Project.Name != "small" || strings.Join(tasks, ",") != "a,b,c" || strings.Join(triggers, ",") != "y,z" {
		t.Fatalf("read project %q, tasks %v, triggers %v; want small, a,b,c and y,z", d.Project.Name, tasks, triggers)
	}
	d, err = f.Definitions.ProjectDefinitions(t.Context(), "small", 1)
	if err != nil || len(d.Tasks) != 1 || d.Tasks[0].Spec.Name != "a" || len(d.Triggers) != 1 || d.Triggers[0].Spec.Name != "y" {
		t.Fatalf("read with limit 1: %+v, %v; want task a and trigger y", d, err)
	}
	newProject(t, f, "alpha")
	if names, err := f.Definitions.ProjectNames(t.Context(), "", 5, nil); err != nil || strings.Join(catalog.Names(names), ",") != "alpha,small" {
		t.Fatalf("project names %v, %v; want alpha,small", names, err)
	}
	if names, err := f.Definitions.ProjectNames(t.Context(), "", 1, nil); err != nil || strings.Join(catalog.Names(names), ",") != "alpha" {
		t.Fatalf("first project name %v, %v; want alpha", names, err)
	}
	// A bound token's or user's projects are kept before the limit cuts.
	if names, err := f.Definitions.ProjectNames(t.Context(), "", 1, []string{"small", "gone"}); err != nil || strings.Join(catalog.Names(names), ",") != "small" {
		t.Fatalf("first project name of small and gone %v, %v; want small", names, err)
	}
	// A page past a cursor, the last name of the page before, starts
	// after it, each project with the id it is read by.
	names, err := f.Definitions.ProjectNames(t.Context(), "alpha", 5, nil)
	if err != nil || strings.Join(catalog.Names(names), ",") != "small" || names[0].ID != d.Project.ID {
		t.Fatalf("project names past alpha %+v, %v; want small, id %s", names, err, d.Project.ID)
	}
	if names, err := f.Definitions.ProjectNames(t.Context(), "small", 5, nil); err != nil || len(names) != 0 {
		t.Fatalf("project names past the last one %+v, %v; want none", names, err)
	}
	if names, err := f.Definitions.ProjectNames(t.Context(), "alpha", 5, []string{"alpha"}); err != nil || len(names) != 0 {
		t.Fatalf("alpha's names past alpha %+v, %v; want none", names, err)
	}
}

// A project named in an address by its id (older links) is found by it,
// and an id no project has finds none.
func testProjectNameOf(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "small.yaml", []byte(small)))
	d, err := f.Definitions.ProjectDefinitions(t.Context(), "small", 0)
	if err != nil {
		t.Fatal(err)
	}
	if name, err := f.Definitions.ProjectNameOf(t.Context(), d.Project.ID); err != nil || name != "small" {
		t.Fatalf("the name of project %s: %q, %v; want small", d.Project.ID, name, err)
	}
	if name, err := f.Definitions.ProjectNameOf(t.Context(), ids.New()); err != nil || name != "" {
		t.Fatalf("the name of an id no project has: %q, %v; want none", name, err)
	}
	if _, err := f.Definitions.ProjectNameOf(t.Context(), "small"); qlerror.CodeOf(err) != qlerror.Invalid {
		t.Fatalf("the name of project id \"small\": %v; want invalid", err)
	}
}

func testExportUnknownProject(t *testing.T, f Fixture) {
	_, err := apply.ExportProject(t.Context(), f.Definitions, "nope", nil)
	if qlerror.CodeOf(err) != qlerror.NotFound || qlerror.ReasonOf(err) != catalog.RefusalProjectMissing || !strings.Contains(err.Error(), "no project yet") {
		t.Fatalf("export with no project: %v; want not_found, project_missing, saying there is none", err)
	}
	newProject(t, f, "beta")
	newProject(t, f, "alpha")
	_, err = apply.ExportProject(t.Context(), f.Definitions, "nope", nil)
	if qlerror.CodeOf(err) != qlerror.NotFound || !strings.Contains(err.Error(), `project "nope" does not exist; the projects are alpha, beta`) {
		t.Fatalf("export of an unknown project: %v; want not_found naming alpha, beta", err)
	}
}

// testMissingProjectNamesOnlyTheCallersProjects: the refusal of a project
// no one has, asked by a caller bound to projects, names the projects
// there are among the caller's only, never another team's.
func testMissingProjectNamesOnlyTheCallersProjects(t *testing.T, f Fixture) {
	for _, name := range []string{"alpha", "beta", "charlie"} {
		newProject(t, f, name)
	}
	_, err := apply.ExportProject(t.Context(), f.Definitions, "nope", []string{"alpha", "beta", "nope"})
	if qlerror.ReasonOf(err) != catalog.RefusalProjectMissing || !strings.Contains(err.Error(), "the projects you may act on are alpha, beta") || strings.Contains(err.Error(), "charlie") {
		t.Fatalf("export of an unknown project by a caller of alpha, beta and nope: %v; want project_missing naming alpha, beta and never charlie", err)
	}
	err = apply.ProjectMissing(t.Context(), f.Definitions, "nope", []string{"nope"})
	if qlerror.ReasonOf(err) != catalog.RefusalProjectMissing || !strings.Contains(err.Error(), "none of the projects you may act on exists yet") || strings.Contains(err.Error(), "alpha") {
		t.Fatalf("an unknown project of a caller bound to it alone: %v; want project_missing naming no project", err)
	}
}

func testExportArchived(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "small.yaml", []byte(small)))
	applyFile(t, f, parse(t, "small.yaml", []byte(strings.Replace(small, "project: small\n", "project: small\nstatus: archived\n", 1))))
	ex := export(t, f, "small")
	if !strings.Contains(string(ex.YAML), "status: archived\n") || len(ex.Notes) != 1 || ex.Notes[0].Reason != apply.ExportNoteArchived {
		t.Fatalf("export of an archived project: notes %v\n%s; want status: archived and the note", ex.Notes, ex.YAML)
	}
	requireUnchanged(t, f, ex)
	if p, err := f.Catalog.ProjectByName(t.Context(), "small"); err != nil || p.Status != project.Archived {
		t.Fatalf("project after applying its export: %+v, %v; want it still archived", p, err)
	}
}

// testExportOlderTask: a task published without its trigger (by the
// catalog alone, or by an apply of an earlier release, which did not carry
// the triggers a file left out along) leaves the trigger on the task's
// older revision, which a file cannot say: the export notes it, and
// applying the export moves the trigger on.
func testExportOlderTask(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "small.yaml", []byte(small)))
	d, err := f.Definitions.ProjectDefinitions(t.Context(), "small", 10)
	if err != nil {
		t.Fatal(err)
	}
	c := d.Tasks[slices.IndexFunc(d.Tasks, func(r task.Revision) bool { return r.Spec.Name == "c" })]
	spec := c.Spec
	spec.Command.Path = "/bin/false"
	publishTask(t, f, d.Project.ID, c.TaskID, c.Revision, spec)
	ex := export(t, f, "small")
	if len(ex.Notes) != 1 || ex.Notes[0].Reason != apply.ExportNoteOlderTask || !strings.Contains(ex.Notes[0].Message, "z (task c revision 1, current 2)") {
		t.Fatalf("notes %v; want the trigger z on revision 1 of task c noted", ex.Notes)
	}
	res, err := apply.Apply(t.Context(), f.Service, parse(t, "export.yaml", ex.YAML), ids.New)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if want := r.Name == "z"; (r.Change == catalog.Updated) != want {
			t.Errorf("applying the export: %s; want only trigger z updated, to the task's current revision", r)
		}
	}
	if again := export(t, f, "small"); len(again.Notes) != 0 {
		t.Fatalf("notes after the trigger moved on: %v; want none", again.Notes)
	}
}

func testExportDisabledTask(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "small.yaml", []byte(small)))
	applyFile(t, f, parse(t, "c.yaml", []byte("project: small\ntasks:\n  - {name: c, command: [/bin/true], enabled: false}\n")))
	ex := export(t, f, "small")
	if len(ex.Notes) != 2 || ex.Notes[1].Reason != apply.ExportNoteDisabledTask || !strings.Contains(ex.Notes[1].Message, "z (task c)") {
		t.Fatalf("notes %v; want the enabled trigger z of the disabled task c noted", ex.Notes)
	}
	if _, err := apply.Parse("export.yaml", ex.YAML); qlerror.CodeOf(err) != qlerror.Invalid || !strings.Contains(err.Error(), `trigger "z" is enabled but task "c" is disabled`) {
		t.Fatalf("reading the export: %v; want the refusal the note announces", err)
	}
}
