package httpapi

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"regexp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// errNoPublish answers an apply on a server whose database role may not
// publish definitions: the cluster's replicas run as the runtime role.
var errNoPublish = qlerror.New(qlerror.PermissionDenied, "this server cannot publish definitions: its database role may not "+
	"(a cluster replica runs as the runtime role, and publishing is the admin role's); run `ql apply -f FILE` "+
	"with the admin role's URL (QL_DATABASE_URL=postgres://ql_admin@host/db) instead").Because(RefusalNotOverTheAPI)

// DryRuns is what answers an apply's dry run without publishing: Service
// for its clock and executor (its Store unused), Reader for what the plan
// reads.
type DryRuns struct {
	Service catalog.Service
	Reader  catalog.Reader
}

// neverServed is, for the route of pattern, why this server can serve
// the request to no token (protect), or nil when a token of its scope is
// served. A server that cannot publish serves no apply but, with DryRuns,
// a dry run (an unreadable dryRun is the handler's to refuse).
func (a *api) neverServed(pattern string) func(*http.Request) error {
	if pattern != "/api/v1/apply" {
		return nil
	}
	return func(r *http.Request) error {
		if a.Definitions != nil {
			return nil
		}
		if dry, err := boolean("dryRun", r.URL.Query().Get("dryRun"), false); a.DryRuns != nil && (dry || err != nil) {
			return nil
		}
		return errNoPublish
	}
}

// ApplyObject is one object of an apply's diff.
type ApplyObject struct {
	Kind     string   `json:"kind"`
	Name     string   `json:"name"`
	Change   string   `json:"change"`
	Revision int64    `json:"revision,omitempty"`
	Fields   []string `json:"fields,omitempty"`
	// Runs says, for a project the apply archives, what becomes of its
	// Runs: none queued starts while it is archived, running ones go on.
	Runs string `json:"runs,omitempty"`
}

// ApplyView is POST /api/v1/apply's answer, and `ql apply -o json`'s: what
// changed (or, in a dry run, would), object by object, and the counts.
// Nothing is ever removed: objects missing from the file are left as they
// are.
type ApplyView struct {
	DryRun    bool          `json:"dryRun"`
	File      string        `json:"file"`
	Project   string        `json:"project"`
	Objects   []ApplyObject `json:"objects"`
	Created   int           `json:"created"`
	Updated   int           `json:"updated"`
	Unchanged int           `json:"unchanged"`
	Notes     []ApplyNote   `json:"notes"`
}

// ApplyNote is one note about a valid file, as `ql apply` prints it:
// reason names it stably, items and params are what its sentence names,
// more counts the objects it is about but does not name, and message is
// the English sentence `ql apply` prints after "note: ".
type ApplyNote struct {
	Reason  string              `json:"reason"`
	Items   []map[string]string `json:"items"`
	More    int                 `json:"more,omitempty"`
	Params  map[string]string   `json:"params,omitempty"`
	Message string              `json:"message" cmdname:"said"`
}

// NewApplyView shapes what an apply of file (of project) did, or in a dry
// run would do, and its notes.
func NewApplyView(dryRun bool, file, project string, results []apply.Result, notes []apply.Note) ApplyView {
	out := ApplyView{DryRun: dryRun, File: file, Project: project, Objects: make([]ApplyObject, 0, len(results)), Notes: make([]ApplyNote, len(notes))}
	for i, n := range notes {
		out.Notes[i] = ApplyNote{Reason: string(n.Reason), Items: n.Items, More: n.More, Params: n.Params, Message: n.String()}
	}
	for _, res := range results {
		out.Objects = append(out.Objects, ApplyObject{Kind: res.Kind, Name: res.Name, Change: string(res.Change), Revision: res.Revision, Fields: res.Fields, Runs: res.Runs})
		switch res.Change {
		case catalog.Created:
			out.Created++
		case catalog.Updated:
			out.Updated++
		default:
			out.Unchanged++
		}
	}
	return out
}

// fileNamePattern bounds ?file=, the name errors cite for the body.
var fileNamePattern = regexp.MustCompile(`^[^/\\\x00-\x1f]{1,128}$`)

// applyDefinitions validates a definitions file (the YAML body) as `ql
// apply` does and, unless ?dryRun=true, publishes it in one transaction
// with the audit record of the token and address. Admin scope: a
// definitions file decides what commands run on the hosts, as which user.
// With If-Match, it publishes only over the revision of the project the
// client read; with If-None-Match: *, only if no project has its name;
// with ?createOnly=true, only what does not exist yet: each checked in
// the publishing transaction (apply.Options).
func (a *api) applyDefinitions(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "dryRun", "file", "createOnly")
	if err != nil {
		return nil, err
	}
	dry, err := boolean("dryRun", q["dryRun"], false)
	if err != nil {
		return nil, err
	}
	createOnly, err := boolean("createOnly", q["createOnly"], false)
	if err != nil {
		return nil, err
	}
	file := "request"
	if f, ok := q["file"]; ok {
		if !fileNamePattern.MatchString(f) {
			return nil, qlerror.New(qlerror.Invalid, "query parameter file is %q; give a file name of 1 to 128 characters without a path: it names the body in errors", clip(f)).
				Because(RefusalQueryFileName, "parameter", "file", "value", clip(f))
		}
		file = f
	}
	// A dry run only reads: a server that may not publish answers it
	// where it can read what it reads (DryRuns).
	if a.Definitions == nil && (!dry || a.DryRuns == nil) {
		return nil, errNoPublish
	}
	if err := definitionsType(r.Header.Get("Content-Type")); err != nil {
		return nil, err
	}
	absent, err := ifNoneMatch(r)
	if err != nil {
		return nil, err
	}
	doc, err := apply.Read(file, r.Body)
	if err != nil {
		return nil, tooLarge(err, a.guard.limits.MaxBody)
	}
	if err := covers(tokenOf(ctx), doc.Project); err != nil {
		return nil, err
	}
	if err := boundRunAs(tokenOf(ctx), doc); err != nil {
		return nil, err
	}
	var results []apply.Result
	if dry {
		stale := a.checkDry(ctx, doc.Project, ifMatch(r), absent)
		if stale != nil && !apply.Stale(stale) {
			return nil, stale
		}
		svc, reader := a.planning()
		results, err = apply.Plan(ctx, svc, reader, doc, ids.New)
		if err := apply.StaleUnlessPublished(stale, results, err); err != nil {
			return nil, err
		}
		if err == nil && createOnly {
			err = apply.CheckCreateOnly(doc.Project, results)
		}
	} else {
		svc := *a.Definitions
		results, err = apply.Publish(ctx, svc, doc, ids.New, apply.Options{Actor: principalOf(ctx).actor(), Summarized: true, IfMatch: ifMatch(r), IfNoneMatch: absent, CreateOnly: createOnly})
	}
	if err != nil {
		return nil, err
	}
	return NewApplyView(dry, file, doc.Project, results, a.definitionsNotes(ctx, doc, results)), nil
}

// boundRunAs refuses a token bound to projects a file whose task names a
// runAs, dry run or not: which account of the host runs a command is no
// one project's to choose (apitoken.RefusalRunAsNeedsEveryProject).
func boundRunAs(t apitoken.Token, doc *apply.Document) error {
	if !t.Bound() {
		return nil
	}
	for _, td := range doc.Tasks {
		if r := td.Spec.Command.RunAs; !r.IsZero() {
			return apitoken.ErrRunAsNeedsEveryProject(t, td.Spec.Name, r.String())
		}
	}
	return nil
}

// RefusalApplyContentType is the reason of an apply whose body is sent
// as something other than a file: a form (curl -d, which also strips
// the file's newlines) or a multipart upload (curl -F), whose bytes are
// not the file and would be refused at line 1 with a YAML error that
// says nothing of why.
const RefusalApplyContentType qlerror.Reason = "apply_content_type"

// definitionsTypes are the content types an apply body is taken as, a
// definitions file: YAML's, plain text, bytes, and JSON (which is YAML);
// none at all is taken too.
var definitionsTypes = map[string]bool{"application/yaml": true, "application/x-yaml": true, "text/yaml": true, "text/x-yaml": true,
	"text/plain": true, "application/octet-stream": true, "application/json": true}

// definitionsType refuses an apply body sent as a form or an upload, or
// as any other type a file is not sent as.
func definitionsType(ct string) error {
	if ct == "" {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && definitionsTypes[mt] {
		return nil
	}
	return qlerror.New(qlerror.Invalid, "the request body is sent as %q, not as a definitions file: send the file's bytes as they are, "+
		"with Content-Type: application/yaml, e.g. curl --data-binary @FILE -H 'Content-Type: application/yaml' (curl -d strips the file's newlines, -F sends a form)", ct).
		Because(RefusalApplyContentType, "value", ct)
}

// planning is the service and the reader an apply's dry run (and its
// notes) uses: the publishing service's where there is one, else
// DryRuns'.
func (a *api) planning() (catalog.Service, catalog.Reader) {
	if a.Definitions != nil {
		return *a.Definitions, a.Definitions.Store
	}
	return a.DryRuns.Service, a.DryRuns.Reader
}

// definitionsNotes are the notes of doc this server can know, as its
// console shows them: retry and placement only where it runs every Run
// itself, secrets only where it holds the secrets file of the machine that
// runs the commands (a file it cannot use included: it reads it as the
// user that runs them), and the secrets every worker must hold only where
// Runs go to workers.
func (a *api) definitionsNotes(ctx context.Context, doc *apply.Document, results []apply.Result) []apply.Note {
	svc, _ := a.planning()
	ns := apply.Notes(doc, apply.NoteScope{RunsHere: svc.Executor == task.LocalProcess, OnWorkers: svc.Executor == task.RemoteWorker, NowMs: svc.NowMs(), MissingSecrets: a.MissingSecrets, PathMissing: process.PathMissing})
	return apply.AddUnlisted(ctx, a.Export, doc, results, ns)
}

// fileError is one error of a definitions file at its place: line,
// column and message as ever; then what a client needs to act on it
// without reading the message: the task or trigger it is about (by name;
// at most one of them, none when the name could not be read), the key
// path it is at from the file's top (apply.LocatedError.Path), and its
// reason with the values its sentence names, to word it in another
// language.
type fileError struct {
	Line    int               `json:"line"`
	Column  int               `json:"column,omitempty"`
	Message string            `json:"message"`
	Task    string            `json:"task,omitempty"`
	Trigger string            `json:"trigger,omitempty"`
	Path    string            `json:"path,omitempty"`
	Reason  qlerror.Reason    `json:"reason,omitempty"`
	Params  map[string]string `json:"params,omitempty"`
	// Reasons is every mistake the error holds, when it holds more than
	// one (an email channel's host, sender and recipients are checked at
	// once): the first is Reason and Params, kept for the clients that
	// read only those.
	Reasons []reasonParams `json:"reasons,omitempty"`
}

// reasonParams is one mistake of an error: its reason and the values its
// sentence names.
type reasonParams struct {
	Reason qlerror.Reason    `json:"reason"`
	Params map[string]string `json:"params,omitempty"`
}

// reasonsOf is every mistake err holds when it holds more than one; nil
// when the error's Reason says it all.
func reasonsOf(err error) []reasonParams {
	all := qlerror.Reasoned(err)
	if len(all) < 2 {
		return nil
	}
	out := make([]reasonParams, len(all))
	for i, e := range all {
		out[i] = reasonParams{Reason: e.Reason, Params: e.Params}
	}
	return out
}

// located is the places err points at in a definitions file, every error
// of it in file order, for the error body, and the count of those found
// past them; nil when it points at none.
func located(err error) ([]fileError, int) {
	list, more := apply.Errors(err)
	if len(list) == 0 {
		return nil, 0
	}
	out := make([]fileError, len(list))
	for i, le := range list {
		out[i] = fileError{Line: le.Line, Column: le.Column, Message: le.Detail, Path: le.Path(), Reason: qlerror.ReasonOf(le), Params: qlerror.ParamsOf(le), Reasons: reasonsOf(le)}
		switch le.About.Kind {
		case "task":
			out[i].Task = le.About.Name
		case "trigger":
			out[i].Trigger = le.About.Name
		}
	}
	return out, more
}

// locatedText is the whole text of a definitions-file error: the outer
// message alone would drop the causes at the lines it names.
func locatedText(err error) (string, bool) {
	var fe *apply.FileErrors
	if errors.As(err, &fe) {
		return fe.Error(), true
	}
	var le *apply.LocatedError
	if !errors.As(err, &le) {
		return "", false
	}
	return le.Error(), true
}
