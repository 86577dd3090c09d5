package apply

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalProjectChangedSince is a project whose title, cap, status or env
// is not what the Edit environment form showed: someone published it
// meanwhile, and the form's file would set it back.
const RefusalProjectChangedSince qlerror.Reason = "defs_edit_project_changed_since"

// RefusalProjectEnvNotShown is a project with an env value a text box
// cannot give back as it is (a carriage return, a control character):
// the Edit environment form would change it unasked.
const RefusalProjectEnvNotShown qlerror.Reason = "defs_edit_project_env_not_shown"

// EditProjectEnv is a project's env as the console's Edit environment
// form shows and sends it, with the state of the project it showed
// (Shown: projectState).
type EditProjectEnv struct {
	Project string
	Shown   int64
	Env     []EnvRow
}

// ProjectEnvToEdit is the named project's env as the Edit environment
// form shows it; refused (saying to edit the project's definitions file)
// for an env with a value a text box would not give back as it is.
func ProjectEnvToEdit(ctx context.Context, r catalog.DefinitionsReader, projectName string) (EditProjectEnv, error) {
	d, err := definitionsOf(ctx, r, projectName)
	if err != nil {
		return EditProjectEnv{}, err
	}
	if err := projectEnvShownAsIs(d.Project); err != nil {
		return EditProjectEnv{}, err
	}
	return EditProjectEnv{Project: projectName, Shown: projectState(d.Project), Env: EnvRows(d.Project.Env)}, nil
}

// ProjectEnvFile writes the definitions file that gives e's project e's
// env: the project with its status, title and cap, and no task or
// trigger, which a file leaves as they are — a project update, no task
// revision. A project changed since the form showed it is refused, so the
// form cannot undo that change; the state the file was written from is
// returned, for the apply to check again (Document.Expect).
func ProjectEnvFile(ctx context.Context, r catalog.DefinitionsReader, e EditProjectEnv) ([]byte, []Expected, error) {
	d, err := definitionsOf(ctx, r, e.Project)
	if err != nil {
		return nil, nil, err
	}
	if cur := projectState(d.Project); cur != e.Shown {
		return nil, nil, projectChangedSince(e.Project)
	}
	if err := projectEnvShownAsIs(d.Project); err != nil {
		return nil, nil, err
	}
	doc := statusOnly(d.Project)
	doc.Env = envYAML(e.Env)
	text, err := encodeExport(doc)
	return text, []Expected{{Kind: "project", Name: e.Project, Revision: e.Shown}}, err
}

// projectState is what a project's file written by the Edit environment
// form sets (its status, title, cap and env) as one positive number,
// which differs when any of them does: a project has no revisions.
func projectState(p project.Project) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%q %q %d", p.Status, p.Title, p.MaxRunning)
	for _, e := range p.Env {
		fmt.Fprintf(h, " %q=%q/%q", e.Name, e.Value, e.SecretRef)
	}
	return int64(h.Sum64()&math.MaxInt64) | 1
}

// checkProjectExpected refuses doc when the project state it expects
// (Document.Expect, kind "project") is not the one the apply's
// transaction reads: a publish made since the file was written would be
// set back by it.
func checkProjectExpected(ctx context.Context, tx catalog.Tx, doc *Document) error {
	for _, e := range doc.Expect {
		if e.Kind != "project" {
			continue
		}
		p, err := tx.ProjectByName(ctx, doc.Project)
		if err != nil {
			return err
		}
		if e.Name != doc.Project || projectState(p) != e.Revision {
			return projectChangedSince(doc.Project)
		}
	}
	return nil
}

func projectChangedSince(projectName string) error {
	return qlerror.New(qlerror.Conflict, "project %q changed since you opened this form (its env, title, cap or status), so it was not changed: "+
		"the form now shows the current env; make your change to it again", projectName).
		Because(RefusalProjectChangedSince, "project", projectName)
}

// projectEnvShownAsIs refuses, for the Edit environment form, a project
// with an env value a text box would not give back as it is.
func projectEnvShownAsIs(p project.Project) error {
	for _, e := range p.Env {
		if e.SecretRef == "" && !shownAsIs(e.Value) {
			return qlerror.New(qlerror.FailedPrecondition, "project %q has env %s with a carriage return or another control character in its value, "+
				"which a text box cannot give back as it is: edit it in the project's definitions file", p.Name, e.Name).
				Because(RefusalProjectEnvNotShown, "project", p.Name, "env", e.Name)
		}
	}
	return nil
}
