package project

import (
	"context"
	"fmt"
	"strings"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// The refusals of a project's deletion: each leaves everything as it was.
const (
	// RefusalNotArchived: only an archived project is deleted, so that a
	// project still scheduling is never removed by a mistyped name.
	RefusalNotArchived qlerror.Reason = "project_not_archived"
	// RefusalUnfinishedRuns: a Run not finished yet (queued, running,
	// waiting for a retry) would lose its command's outcome.
	RefusalUnfinishedRuns qlerror.Reason = "project_has_unfinished_runs"
	// RefusalBoundTokens: a live API token names the project; deleted,
	// the name would be free for a new project the token would act on.
	RefusalBoundTokens qlerror.Reason = "project_has_bound_tokens" //nolint:gosec // G101: a reason code, not a credential
	// RefusalConfirmationRequired: a deletion asked for without --yes
	// where nobody can type the confirmation (standard input is not a
	// terminal, as in a script or a pipe).
	RefusalConfirmationRequired qlerror.Reason = "confirmation_required"
)

// CodeDeleted is the log code of a project's deletion over the API or
// the console: its name, id, counts and who asked.
const CodeDeleted = "project.deleted"

// DefaultDeleteBatch is how many Runs one step of a deletion removes
// before it reports its progress.
const DefaultDeleteBatch = 500

// DeleteRequest asks for an archived project to be deleted with
// everything of it.
type DeleteRequest struct {
	// Project is its name or id.
	Project string
	// Actor is who deletes it, recorded in the audit trail with what the
	// deletion removed, in its transaction.
	Actor string
	// DryRun counts what would go and deletes nothing.
	DryRun bool
	// Batch is how many Runs each step removes (DefaultDeleteBatch when
	// 0); OnBatch, when set, sees what was deleted so far after each.
	Batch   int
	OnBatch func(soFar DeleteCounts)
}

// DeleteCounts is what a deletion removes (or, dry, would remove).
type DeleteCounts struct {
	Tasks, Triggers, Runs, Attempts, Events int64
	// Ledger is the rows of the project's triggers' occurrence ledger:
	// its entries and its compacted totals.
	Ledger int64
	// Audit is the pause and resume records of its triggers.
	Audit         int64
	Notifications int64
	// Logs and LogBytes are the attempts' captured output: files on
	// standalone, chunks on the cluster.
	Logs, LogBytes int64
}

// KeptLog is a log file of a deleted project that could not be removed.
type KeptLog struct {
	Path string
	Err  error
}

// DeleteResult is what a deletion did.
type DeleteResult struct {
	ProjectID, ProjectName string
	DryRun                 bool
	Deleted                DeleteCounts
	// Secrets are the project's secrets (PROJECT/NAME) removed from the
	// secrets file, or that would be; SecretsErr why they could not be.
	Secrets    []string
	SecretsErr error
	// Kept are log files left on disk (their rows are gone); a
	// deletion asked again for the same name removes them.
	Kept []KeptLog
	// WouldRefuse is the refusal a dry run's deletion would meet (nil:
	// none); a dry run counts all the same.
	WouldRefuse error
	// Leftovers is true when the project was deleted before and this
	// request only removed what was left of its logs.
	Leftovers bool
}

// Deleter deletes projects.
type Deleter interface {
	// ProjectDelete deletes the archived project and everything of it
	// in one transaction, refused while it is active, has an unfinished
	// Run or a live token bound to it; then its log files and secrets.
	ProjectDelete(ctx context.Context, r DeleteRequest) (DeleteResult, error)
}

// Audited is the audit record of the deletion of the project out names,
// which removed out.Deleted, asked by r's actor.
func (r DeleteRequest) Audited(out DeleteResult) audit.Entry {
	return audit.Entry{Actor: r.Actor, Action: audit.ProjectDeleted, ObjectKind: audit.KindProject, ObjectID: out.ProjectID,
		ObjectName: out.ProjectName, Project: out.ProjectName, Note: out.Deleted.String()}
}

// BatchSize is r's batch, or the default.
func (r DeleteRequest) BatchSize() int {
	if r.Batch <= 0 {
		return DefaultDeleteBatch
	}
	return r.Batch
}

// NotArchived refuses to delete an active project.
func NotArchived(name string) error {
	return qlerror.New(qlerror.FailedPrecondition, "project %s is active: only an archived project is deleted; archive it first "+
		"(set status: archived in its definitions file and apply it: `ql apply -f FILE`), then delete it", name).
		Because(RefusalNotArchived, "name", name)
}

// UnfinishedRuns refuses to delete a project with n Runs not finished.
func UnfinishedRuns(name string, n int64) error {
	return qlerror.New(qlerror.FailedPrecondition, "project %s has %s not finished yet (queued, running or waiting for a retry); "+
		"cancel them (`ql runs cancel --project %s --state queued`, then --state running) or wait for them to end, then delete it",
		name, plural.Count(n, "Run", "Runs"), name).
		Because(RefusalUnfinishedRuns, "name", name, "runs", n)
}

// BoundTokens refuses to delete a project live API tokens are bound to.
func BoundTokens(name string, tokens []string) error {
	return qlerror.New(qlerror.FailedPrecondition, "project %s is named by live API tokens bound to it (%s): revoke each (`ql tokens revoke NAME`; "+
		"one bound to other projects too can be created again without this one), then delete it", name, strings.Join(tokens, ", ")).
		Because(RefusalBoundTokens, "name", name, "tokens", strings.Join(tokens, ", "))
}

// String is the counts in a line.
func (c DeleteCounts) String() string {
	return fmt.Sprintf("%s, %s, %s, %s, %s, %s (%s), %s, %s, %s",
		plural.Count(c.Tasks, "task", "tasks"), plural.Count(c.Triggers, "trigger", "triggers"),
		plural.Count(c.Runs, "Run", "Runs"), plural.Count(c.Attempts, "attempt", "attempts"), plural.Count(c.Events, "event", "events"),
		plural.Count(c.Logs, "log", "logs"), plural.Count(c.LogBytes, "byte", "bytes"), plural.Count(c.Ledger, "ledger entry", "ledger entries"),
		plural.Count(c.Audit, "pause record", "pause records"), plural.Count(c.Notifications, "notification", "notifications"))
}
