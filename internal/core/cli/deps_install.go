package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/deps"
)

func depsInstallCommand(opts Options) *cobra.Command {
	var db dbFlags
	c := &cobra.Command{
		Use:   "install TYPE [NAME...]",
		Short: "Install declared packages again on the server: every one of a type, or those named",
		Long: `Install again, as the Dependencies page's Reinstall and Install all do: with no NAME every declared
package of the type (node, python or linux) in one Run, else each NAME (as declared, without
its version) in a Run of its own. It prints each Run's id.
` + apiHelp("deps install"),
		Example: "  " + opts.Binary + " deps install node --api-url https://ql.example.com:8080\n  " +
			opts.Binary + " deps install python requests --api-url https://ql.example.com:8080",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 1 {
				return Usagef("deps install takes one type (node, python or linux), then the declared names to install again (none: every one)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			names := args[1:]
			if len(names) == 0 {
				names = []string{""}
			}
			for _, name := range names {
				err := depsChange(cmd, opts, &db, args[0], func(ctx context.Context, m deps.Manager, k deps.Kind) (string, error) {
					return m.DependencyInstall(ctx, "", k, name)
				})
				if err != nil {
					return err
				}
			}
			return nil
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	return c
}
