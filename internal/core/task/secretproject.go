package task

import (
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalSecretOfAnotherProject is a task or notification channel naming
// a secret of another project's namespace: name, project (the secret's),
// from (the project naming it).
const RefusalSecretOfAnotherProject qlerror.Reason = "secret_of_another_project"

// SecretProject is the project whose namespace secret name is in: the part
// before its slash (PROJECT/NAME), "" for a global name, which every
// project's tasks and channels may name.
func SecretProject(name string) string {
	p, _, ok := strings.Cut(name, "/")
	if !ok {
		return ""
	}
	return p
}

// CheckSecretProject refuses secret name to project from unless the name
// is global or in from's own namespace. Publishing checks it, and so does
// whatever resolves a secret for a command (the standalone executor, a
// worker), since a definition published before the namespace existed
// could still name one. It is a mistake in the definitions, refused as
// the other mistakes of a file are (Invalid).
func CheckSecretProject(from, name string) error {
	owner := SecretProject(name)
	if owner == "" || owner == from {
		return nil
	}
	return qlerror.New(qlerror.Invalid,
		"secret %q belongs to project %s, so only project %s's tasks and notification channels may name it, not project %s's; set a secret of project %s's own (%s/NAME) or a global one (a name without a slash) and name that instead",
		name, owner, owner, from, from, from).
		Because(RefusalSecretOfAnotherProject, "name", name, "project", owner, "from", from)
}
