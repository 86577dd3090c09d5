package replica

import (
	"context"
	"errors"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// catalogReader is an export's reads with permission errors explained:
// the admin and the runtime role both read the catalog, the maintenance
// and worker ingress roles may not.
type catalogReader struct{ r catalog.DefinitionsReader }

func (c catalogReader) ProjectDefinitions(ctx context.Context, name string, limit int) (catalog.Definitions, error) {
	d, err := c.r.ProjectDefinitions(ctx, name, limit)
	return d, explainReadRole(err)
}

func (c catalogReader) ProjectNames(ctx context.Context, after string, limit int, in []string) ([]catalog.ProjectName, error) {
	names, err := c.r.ProjectNames(ctx, after, limit, in)
	return names, explainReadRole(err)
}

func (c catalogReader) ProjectNameOf(ctx context.Context, id string) (string, error) {
	name, err := c.r.ProjectNameOf(ctx, id)
	return name, explainReadRole(err)
}

// explainReadRole rewrites a permission error into the roles that may.
func explainReadRole(err error) error {
	var st sqlStater
	if err != nil && errors.As(err, &st) && st.SQLState() == insufficientPrivilege {
		return qlerror.New(qlerror.PermissionDenied, "exporting definitions needs the admin or the runtime role's URL "+
			"(e.g. QL_DATABASE_URL=postgres://ql_admin@host/db); the role in this URL may not read them")
	}
	return err
}
