package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// ifMatch holds an If-Match header's revisions, the quotes of each
// entity tag taken off (a revision is taken bare too); nil when the
// request has no If-Match. The apply checks them in the transaction that
// publishes (apply.Options.IfMatch).
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

// taggedAnswer is a JSON answer with the ETag of the revision it shows.
// Its fields are exported so that the API's renaming of its sentences
// (cmdname.InAnswer) reaches the body.
type taggedAnswer struct {
	ETag string
	Body any
}

func (t taggedAnswer) write(w http.ResponseWriter) {
	if t.ETag != "" {
		w.Header().Set("ETag", `"`+t.ETag+`"`)
	}
	writeJSON(w, http.StatusOK, t.Body)
}

// checkDry refuses a dry run whose If-Match (tags) does not name the
// project's revision, or whose If-None-Match: * (absent) finds the
// project, as the apply would be refused.
func (a *api) checkDry(ctx context.Context, project string, tags []string, absent bool) error {
	if tags == nil && !absent {
		return nil
	}
	if a.Export == nil {
		return qlerror.New(qlerror.FailedPrecondition, "this server cannot read a project's revision, so it cannot check If-Match or If-None-Match in a dry run; dry-run without them, or where the database is")
	}
	if absent {
		return apply.CheckAbsent(ctx, a.Export, project)
	}
	return apply.CheckRevision(ctx, a.Export, project, tags)
}
