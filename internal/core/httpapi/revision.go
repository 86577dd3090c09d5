package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/digest"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// codePreconditionFailed is an apply whose If-Match no longer names the
// project's revision (412).
const codePreconditionFailed qlerror.Code = "precondition_failed"

// RefusalSpecChanged is the reason of an apply whose If-Match is not the project's revision
// now: someone applied, enabled or disabled since it was read (412).
const RefusalSpecChanged qlerror.Reason = "spec_changed"

// revisionLimit is how many tasks and triggers a project's revision
// reads: one more than a file holds, as an export does. A project past
// it has no revision, since a change past the read would not move it.
var revisionLimit = max(apply.MaxTasks, apply.MaxTriggers) + 1

// specRevision is a digest of what the store holds of d's project: its
// id, name, status and notifications, and the id and current revision
// of each of its tasks and triggers, whose content digests the revision
// numbers already stand for. Any apply, enable or disable that changes
// the project moves it; "" when d is past revisionLimit.
func specRevision(d catalog.Definitions) string {
	if len(d.Tasks) >= revisionLimit || len(d.Triggers) >= revisionLimit {
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
	return digest.New("qinglong/project-revision@v1").String("id", d.Project.ID).String("name", d.Project.Name).
		String("status", string(d.Project.Status)).String("notifications", d.Project.Notifications).
		Strings("tasks", tasks).Strings("triggers", triggers).Sum()
}

// revisionOf reads the revision of the project named name and whether
// it exists.
func (a *api) revisionOf(ctx context.Context, name string) (rev string, exists bool, err error) {
	if a.Export == nil {
		return "", false, qlerror.New(qlerror.FailedPrecondition, "this server cannot read a project's revision, so it cannot check If-Match; apply without If-Match, or where the database is")
	}
	d, err := a.Export.ProjectDefinitions(ctx, name, revisionLimit)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return specRevision(d), true, nil
}

// ifMatch holds an If-Match header's revisions, the quotes of each
// entity tag taken off (a revision is taken bare too); nil when the
// request has no If-Match.
func ifMatch(r *http.Request) []string {
	vs := r.Header.Values("If-Match")
	if len(vs) == 0 {
		return nil
	}
	out := []string{}
	for _, v := range vs {
		for _, tag := range strings.Split(v, ",") {
			out = append(out, strings.Trim(strings.TrimSpace(tag), `"`))
		}
	}
	return out
}

// checkRevision refuses an apply of project whose If-Match (tags) does
// not name its revision now, cur ("" when it has none: it does not
// exist, or is past revisionLimit). "*" matches any project there is
// with a revision.
func checkRevision(project, cur string, exists bool, tags []string) error {
	for _, t := range tags {
		if cur != "" && (t == cur || t == "*") {
			return nil
		}
	}
	now := "its revision is now " + cur
	switch {
	case !exists:
		now = "no project has that name now"
	case cur == "":
		now = fmt.Sprintf("it has no revision: it has %d tasks or triggers or more, more than a revision reads", revisionLimit)
	}
	return qlerror.New(codePreconditionFailed, "project %q changed since it was read: If-Match names %s, and %s; nothing was applied: "+
		"read it again (GET /api/v1/projects/%s answers its revision in ETag), apply your change to what it holds now, and send that with the new revision",
		project, clip(strings.Join(tags, ", ")), now, project).Because(RefusalSpecChanged, "project", project, "revision", cur)
}

// taggedAnswer is a JSON answer with the ETag of the revision it shows.
type taggedAnswer struct {
	etag string
	body any
}

func (t taggedAnswer) write(w http.ResponseWriter) {
	if t.etag != "" {
		w.Header().Set("ETag", `"`+t.etag+`"`)
	}
	writeJSON(w, http.StatusOK, t.body)
}

// applying waits for this server's other applies to end, and returns
// what ends this one's turn. An apply with If-Match checks the revision
// and publishes within its turn, so no apply of this server's API lands
// between the check and the publish; every apply of the API takes a turn
// (applyDefinitions), and the stores publish one at a time anyway.
func (a *api) applying(ctx context.Context) (release func(), err error) {
	select {
	case a.applyTurn <- struct{}{}:
		return func() { <-a.applyTurn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
