package cli

import (
	"os"

	"github.com/spf13/cobra"
)

// useMaintenanceURL points db at $QL_DATABASE_MAINTENANCE_URL, the role a
// deleting command needs on PostgreSQL, unless the command itself names
// the database: a --database-url typed on the command line wins over the
// environment, as every typed flag does, and so does a --data-dir, typed
// or from --config (the embedded database, which has no roles). A
// --database-url from --config does not: a server's file holds the
// runtime role's URL, which may not delete.
func useMaintenanceURL(cmd *cobra.Command, opts Options, db *dbFlags) {
	u := os.Getenv(EnvMaintenanceURL)
	if u == "" || opts.OpenPostgres == nil {
		return
	}
	if fl := cmd.Flags().Lookup("data-dir"); fl != nil && onCommandLine(fl) {
		return
	}
	if fl := cmd.Flags().Lookup("database-url"); fl != nil && fl.Changed && settingSource(fl) == "" {
		return
	}
	db.url = u
}
