package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/httpapi"
)

// applyJSON gathers, for `apply -o json`, what a text apply prints as it
// goes (its notes on stderr, its results on stdout), to print them at the
// end as one document in the API's shape (httpapi.ApplyView): a script
// reads the same JSON from the database as from a server.
type applyJSON struct {
	results []apply.Result
	notes   []apply.Note
}

type applyJSONKey struct{}

// gatherApplyJSON makes cmd gather its apply's output for -o json.
func gatherApplyJSON(cmd *cobra.Command) *applyJSON {
	g := &applyJSON{}
	cmd.SetContext(context.WithValue(cmd.Context(), applyJSONKey{}, g))
	return g
}

// applyJSONOf is what cmd gathers, nil when it prints text.
func applyJSONOf(cmd *cobra.Command) *applyJSON {
	if cmd.Context() == nil {
		return nil
	}
	g, _ := cmd.Context().Value(applyJSONKey{}).(*applyJSON)
	return g
}

// print writes what was gathered, of file (of project), on stdout.
func (g *applyJSON) print(cmd *cobra.Command, dryRun bool, file, project string) error {
	return writeJSON(cmd.OutOrStdout(), httpapi.NewApplyView(dryRun, file, project, g.results, g.notes))
}
