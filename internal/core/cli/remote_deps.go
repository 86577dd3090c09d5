package cli

import (
	"context"
	"strings"

	"github.com/qinglong/qinglong/internal/core/deps"
)

var _ deps.Manager = (*apiClient)(nil)

// depsPath is the API's route of a server's declared packages.
const depsPath = "/api/v1/dependencies"

type depsRequest struct {
	Kind     string   `json:"kind"`
	Packages []string `json:"packages,omitempty"`
	Name     string   `json:"name,omitempty"`
}

type depsAnswer struct {
	RunID string `json:"runId"`
}

// DependencyListed lists the server's declared packages.
func (c *apiClient) DependencyListed(ctx context.Context) ([]deps.Listed, error) {
	var out struct {
		Dependencies []deps.Listed `json:"dependencies"`
	}
	err := c.get(ctx, depsPath, nil, &out)
	return out.Dependencies, err
}

// DependencyAdd asks the server to declare and install packages.
func (c *apiClient) DependencyAdd(ctx context.Context, _ string, k deps.Kind, specs string) (string, error) {
	var out depsAnswer
	err := c.post(ctx, depsPath, depsRequest{Kind: string(k), Packages: strings.Fields(specs)}, &out)
	return out.RunID, err
}

// DependencyInstall asks the server to install declared packages again.
func (c *apiClient) DependencyInstall(ctx context.Context, _ string, k deps.Kind, name string) (string, error) {
	var out depsAnswer
	err := c.post(ctx, depsPath+"/install", depsRequest{Kind: string(k), Name: name}, &out)
	return out.RunID, err
}

// DependencyRemove asks the server to uninstall a declared package.
func (c *apiClient) DependencyRemove(ctx context.Context, _ string, k deps.Kind, name string) (string, error) {
	var out depsAnswer
	err := c.post(ctx, depsPath+"/remove", depsRequest{Kind: string(k), Name: name}, &out)
	return out.RunID, err
}

// DependencyMirrors lists the server's mirrors.
func (c *apiClient) DependencyMirrors(ctx context.Context) ([]deps.Mirror, error) {
	var out struct {
		Mirrors []deps.Mirror `json:"mirrors"`
	}
	err := c.get(ctx, depsPath+"/mirrors", nil, &out)
	return out.Mirrors, err
}

// DependencyMirrorSet asks the server to keep a kind's mirror.
func (c *apiClient) DependencyMirrorSet(ctx context.Context, _ string, m deps.Mirror) (deps.Mirror, error) {
	var out deps.Mirror
	err := c.post(ctx, depsPath+"/mirrors", struct {
		Kind     string `json:"kind"`
		Registry string `json:"registry"`
		Proxy    string `json:"proxy"`
	}{string(m.Kind), m.Registry, m.Proxy}, &out)
	return out, err
}
