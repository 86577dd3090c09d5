package apitoken

import (
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalRunAsNeedsEveryProject is a definitions file, applied with a
// token bound to projects, whose task names a runAs. The account a
// command runs as is the host's to choose, not one project's: as root or
// as the data directory's owner a command reads every project's secrets,
// the database and the logs, and a runAs wins over the server's --run-as,
// so a bound token choosing it would act outside its projects.
const RefusalRunAsNeedsEveryProject qlerror.Reason = "run_as_needs_every_project"

// ErrRunAsNeedsEveryProject refuses the bound token t a file whose task
// task runs as account.
func ErrRunAsNeedsEveryProject(t Token, task, account string) error {
	return qlerror.New(qlerror.PermissionDenied, "token %q is bound to %s and may not publish task %q with runAs %s: the account a command runs as is chosen for the whole host "+
		"(as root or the data directory's owner it reads every project's secrets and the database); leave runAs out, so the task runs as the server's --run-as, "+
		"or apply the file with a token bound to no project",
		t.Name, t.boundText(), task, account).Because(RefusalRunAsNeedsEveryProject, "token", t.Name, "projects", strings.Join(t.Projects, ","), "task", task, "runAs", account)
}
