package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/apply"
	"github.com/qinglong/qinglong/internal/ids"
)

func applyCommand(opts Options) *cobra.Command {
	var file, dsn string
	var dryRun bool
	c := &cobra.Command{
		Use:   "apply -f FILE",
		Short: "Create or update a project's tasks and triggers from a YAML file",
		Long: `Converge the database to a definitions file: one project with its tasks and triggers.
Prints created / updated / unchanged per object. The whole file is validated before
anything is written: invalid input is reported with file:line and the field, and
nothing is written. Objects missing from the file are left as they are.

File format (see examples/sample.yaml):

  project: demo
  tasks:
    - name: hello
      script: echo hello          # shell mode (shell: /bin/sh or /bin/bash)
      # command: ["/bin/date"]    # argv mode instead
      env: {GREETING: hi, TOKEN: {secret: api-token}}
      timeout: 30s
  triggers:
    - name: every-10s
      task: hello
      cron: "*/10 * * * * *"
      timezone: UTC
      misfire: fire_once          # or skip`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return Usagef("-f FILE is required")
			}
			doc, err := apply.ParseFile(file)
			if err != nil {
				return err
			}
			b, err := openBackend(cmd.Context(), opts, dsn)
			if err != nil {
				return err
			}
			defer b.Close()
			if dryRun {
				if err := apply.Check(doc, b.Catalog.NowMs()); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: valid (%d tasks, %d triggers); nothing written\n", file, len(doc.Tasks), len(doc.Triggers))
				return nil
			}
			results, err := apply.Apply(cmd.Context(), b.Catalog, doc, ids.New)
			for _, r := range results {
				fmt.Fprintln(cmd.OutOrStdout(), r)
			}
			return err
		},
	}
	c.Flags().StringVarP(&file, "file", "f", "", "definitions file (YAML)")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "validate the file only; write nothing")
	addDBFlag(c, &dsn)
	return c
}
