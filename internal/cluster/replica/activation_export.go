package replica

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/catalog"
)

// A replica serves exports through the live activation's runtime role,
// which reads the catalog (GET /api/v1/projects/{name}/definitions).
var _ catalog.DefinitionsReader = liveReaders{}

func (l liveReaders) ProjectDefinitions(ctx context.Context, name string, limit int) (catalog.Definitions, error) {
	rt, err := l.runtime()
	if err != nil {
		return catalog.Definitions{}, err
	}
	return rt.ProjectDefinitions(ctx, name, limit)
}

func (l liveReaders) ProjectNameOf(ctx context.Context, id string) (string, error) {
	rt, err := l.runtime()
	if err != nil {
		return "", err
	}
	return rt.ProjectNameOf(ctx, id)
}

func (l liveReaders) ProjectNames(ctx context.Context, after string, limit int, in []string) ([]catalog.ProjectName, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, err
	}
	return rt.ProjectNames(ctx, after, limit, in)
}
