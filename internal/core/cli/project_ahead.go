package cli

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// projectAhead is the warning (without its "warning: " on stderr),
// ending with what follows (then), for a
// project a command names ahead of it (a token bound to it, a secret of
// its namespace) when no project has that name yet: allowed, since the
// project may be applied later, but more often a typo, so the warning
// names the projects there are. It is "" when the project exists, and
// when that cannot be told here (no definitions at hand, a server that
// does not say): a warning, never a refusal.
func projectAhead(ctx context.Context, defs catalog.DefinitionsReader, api *apiClient, project, then string) string {
	var err error
	switch {
	case api != nil:
		_, err = api.ProjectID(ctx, project)
	case defs != nil:
		if _, err = defs.ProjectDefinitions(ctx, project, 0); qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
			err = apply.ProjectMissing(ctx, defs, project, nil)
		}
	}
	if qlerror.ReasonOf(err) != catalog.RefusalProjectMissing {
		return ""
	}
	return err.Error() + "; " + then
}

// secretAhead is projectAhead of the project whose namespace a secret set
// in s is in: the definitions beside a local file, or the server's.
func secretAhead(ctx context.Context, s secretsStore, project string) string {
	then := "the secret is set all the same, for that project's tasks and channels once it is applied"
	switch s := s.(type) {
	case *apiClient:
		return projectAhead(ctx, nil, s, project, then)
	case localSecrets:
		return projectAhead(ctx, s.defs, nil, project, then)
	}
	return ""
}
