package cli

import (
	"os"

	"github.com/spf13/cobra"
)

// useMaintenanceURL points db at $QL_DATABASE_MAINTENANCE_URL, the role a
// deleting command needs on PostgreSQL, unless the command line itself
// names the database (--data-dir or --database-url): what is typed wins
// over the environment, as every other flag does.
func useMaintenanceURL(cmd *cobra.Command, opts Options, db *dbFlags) {
	u := os.Getenv(EnvMaintenanceURL)
	if u == "" || opts.OpenPostgres == nil {
		return
	}
	for _, name := range []string{"data-dir", "database-url"} {
		if fl := cmd.Flags().Lookup(name); fl != nil && onCommandLine(fl) {
			return
		}
	}
	db.url = u
}
