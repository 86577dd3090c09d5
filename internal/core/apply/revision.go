package apply

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/digest"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalSpecChanged is the reason of an apply made over a project
// revision (If-Match, `ql apply --if-match`) that is not the project's
// revision now: someone applied, enabled or disabled since it was read.
const RefusalSpecChanged qlerror.Reason = "spec_changed"

// RefusalProjectExists is the reason of an apply that may only create its
// project (the API's If-None-Match: *) whose project
// exists.
const RefusalProjectExists qlerror.Reason = "project_exists"

// Stale reports whether err is the refusal of a precondition on the
// project an apply writes (RefusalSpecChanged, RefusalProjectExists):
// one the apply answers unchanged for when its file changes nothing
// there (StaleUnlessPublished).
func Stale(err error) bool {
	r := qlerror.ReasonOf(err)
	return r == RefusalSpecChanged || r == RefusalProjectExists
}

// RevisionLimit is how many tasks and triggers a project's revision
// reads: one more than a file holds, as an export does. A project past
// it has no revision, since a change past the read would not move it.
const RevisionLimit = max(MaxTasks, MaxTriggers) + 1

// SpecRevision is a digest of what the store holds of d's project: its
// id, name, status, notifications and titles, and the id and current revision
// of each of its tasks and triggers, whose content digests the revision
// numbers already stand for. Any apply, enable or disable that changes
// the project moves it; "" when d is past RevisionLimit.
func SpecRevision(d catalog.Definitions) string {
	if len(d.Tasks) >= RevisionLimit || len(d.Triggers) >= RevisionLimit {
		return ""
	}
	tasks := make([]string, len(d.Tasks))
	for i, t := range d.Tasks {
		tasks[i] = t.TaskID + "@" + strconv.FormatInt(t.Revision, 10)
	}
	triggers := make([]string, len(d.Triggers))
	for i, t := range d.Triggers {
		triggers[i] = t.TriggerID + "@" + strconv.FormatInt(t.Revision, 10)
	}
	b := digest.New("qinglong/project-revision@v1").String("id", d.Project.ID).String("name", d.Project.Name).
		String("status", string(d.Project.Status)).String("notifications", d.Project.Notifications).
		Strings("tasks", tasks).Strings("triggers", triggers)
	// Titles publish no revision of their own, so the project's revision
	// names them; written only when there are some, so a project without
	// titles keeps the revision it had before titles existed.
	if d.Project.Title != "" || !d.Titles.Empty() {
		b.String("title", d.Project.Title).Strings("taskTitles", pairs(d.Titles.Tasks)).Strings("triggerTitles", pairs(d.Titles.Triggers))
	}
	// Written only when there is one, so a project without a cap keeps
	// the revision it had before caps existed.
	if d.Project.MaxRunning != 0 {
		b.Int("maxRunning", int64(d.Project.MaxRunning))
	}
	// Likewise only when there is one: a project without an env keeps
	// the revision it had before project envs existed.
	for _, e := range d.Project.Env {
		b.String("env.name", e.Name).String("env.value", e.Value).String("env.secret", e.SecretRef)
	}
	return b.Sum()
}

// pairs is titles as sorted "name=title" strings.
func pairs(titles map[string]string) []string {
	out := make([]string, 0, len(titles))
	for name, title := range titles {
		out = append(out, name+"="+title)
	}
	slices.Sort(out)
	return out
}

// definitionsReader reads a project's definitions whole in one snapshot:
// a store, or a publishing transaction (catalog.DefinitionsTx).
type definitionsReader interface {
	ProjectDefinitions(ctx context.Context, name string, limit int) (catalog.Definitions, error)
}

// ProjectRevision reads the revision of the project named name through r
// and whether it exists; "" for one past RevisionLimit.
func ProjectRevision(ctx context.Context, r definitionsReader, name string) (rev string, exists bool, err error) {
	d, err := r.ProjectDefinitions(ctx, name, RevisionLimit)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return SpecRevision(d), true, nil
}

// checkRevision refuses, inside tx, to publish to project unless one of
// expected names its revision read in tx ("*" matches any project there
// is with a revision). Read in the publishing transaction, after what
// serializes the store's publishes (BEGIN IMMEDIATE on SQLite; on
// PostgreSQL, SERIALIZABLE, which re-runs the whole transaction, this
// read included, when another publish commits over it), so no publish
// from anywhere — another server, `ql apply` on the database — lands
// between the check and the write. Nil expected checks nothing.
func checkRevision(ctx context.Context, tx catalog.Tx, project string, expected []string) error {
	if expected == nil {
		return nil
	}
	r, ok := tx.(catalog.DefinitionsTx)
	if !ok {
		return qlerror.New(qlerror.FailedPrecondition, "this store cannot read a project's revision where it publishes, so it cannot apply over one; apply without an expected revision")
	}
	return CheckRevision(ctx, r, project, expected)
}

// RevisionPrecondition is the catalog.EnableRequest.Precondition of an
// enable or disable over expected revisions of project, checked in the
// publishing transaction as an apply's are.
func RevisionPrecondition(project string, expected []string) func(context.Context, catalog.Tx) error {
	return func(ctx context.Context, tx catalog.Tx) error {
		return checkRevision(ctx, tx, project, expected)
	}
}

// checkAbsent refuses, inside tx, to publish to project if it exists,
// read there as checkRevision reads its revision.
func checkAbsent(ctx context.Context, tx catalog.Tx, project string) error {
	r, ok := tx.(catalog.DefinitionsTx)
	if !ok {
		return qlerror.New(qlerror.FailedPrecondition, "this store cannot read a project where it publishes, so it cannot apply only to create one; apply without If-None-Match")
	}
	return CheckAbsent(ctx, r, project)
}

// CheckAbsent refuses unless no project is named project, read through
// r: the check of an apply that may only create its project, a dry run's
// in a read of its own.
func CheckAbsent(ctx context.Context, r definitionsReader, project string) error {
	cur, exists, err := ProjectRevision(ctx, r, project)
	if err != nil || !exists {
		return err
	}
	rev := cur
	if rev == "" {
		rev = "none: it has too many tasks or triggers for one"
	}
	return qlerror.New(qlerror.PreconditionFailed, "project %q exists (revision %s), and If-None-Match: * applies only to create a project: to change it, read it with `ql projects show %s` "+
		"(over the API, GET /api/v1/projects/%s answers its revision in ETag) and apply over its revision with If-Match; to create another, name it otherwise in the file",
		project, rev, project, project).Because(RefusalProjectExists, "project", project, "revision", cur)
}

// CheckRevision refuses unless one of expected names the revision of
// project read through r, as an apply over them is refused. A dry run
// checks it so, in a read of its own: it publishes nothing for another
// publish to land under.
func CheckRevision(ctx context.Context, r definitionsReader, project string, expected []string) error {
	cur, exists, err := ProjectRevision(ctx, r, project)
	if err != nil {
		return err
	}
	for _, e := range expected {
		if cur != "" && (e == cur || e == "*") {
			return nil
		}
	}
	return revisionChanged(project, expected, cur, exists)
}

// revisionChanged is the refusal of an apply over expected, which project
// (at cur, "" when it has none) is no longer at. Over "*" alone, of a
// project that does not exist, it says so: "*" matches any revision there
// is (RFC 9110), so nothing changed since it.
func revisionChanged(project string, expected []string, cur string, exists bool) error {
	if !exists && !slices.ContainsFunc(expected, func(e string) bool { return e != "*" }) {
		return qlerror.New(qlerror.PreconditionFailed, "project %q does not exist, and If-Match: * matches only a project there is: "+
			"to create it, apply without If-Match (or with If-None-Match: *, which creates it only if it still does not exist)", project).
			Because(RefusalSpecChanged, "project", project, "revision", "", "expected", "*")
	}
	was := strings.Join(expected, ", ")
	if len(was) > 200 {
		n := 200
		for !utf8.RuneStart(was[n]) {
			n--
		}
		was = was[:n] + "…"
	}
	if !exists {
		// No project of the name was ever here to change: the revision
		// was read elsewhere (another installation, a database since
		// restored) or the name is mistyped. Saying it "changed" sent
		// users to read a project that does not exist.
		return qlerror.New(qlerror.PreconditionFailed, "project %q does not exist here, so it is at no revision, not at %s: that revision was read from another database "+
			"(another installation, or this one before a restore), or the name is mistyped; `ql projects list` names the projects there are. "+
			"To create it, apply the file without --if-match (If-Match over the API)", project, was).
			Because(RefusalSpecChanged, "project", project, "revision", "", "expected", was)
	}
	now := "now " + cur
	switch {
	case cur == "":
		now = fmt.Sprintf("now it has no revision: it has %d tasks or triggers or more, more than a revision reads", RevisionLimit)
	}
	return qlerror.New(qlerror.PreconditionFailed, "project %q changed since revision %s (%s): read it again with `ql projects show %s` "+
		"(over the API, GET /api/v1/projects/%s answers its revision in ETag), apply your change to what it holds now, and re-apply over the new revision",
		project, was, now, project, project).Because(RefusalSpecChanged, "project", project, "revision", cur, "expected", was)
}
