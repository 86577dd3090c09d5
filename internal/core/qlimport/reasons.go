// Package qlimport reads the data folder of a qinglong panel (青龙, its
// /ql/data) and makes of it what QingLong keeps of the same things: its
// tasks and subscriptions a definitions file (through the crontab
// converter), its environment variables secrets given to the project's
// env, and its dependencies packages for the Dependencies page. It reads
// the panel's database read-only and never writes it, nor its
// config/config.sh, of which it reads names only; Apply stores what
// Make returns in a single node's stores, the same for the command line
// and the console.
package qlimport

import "github.com/qinglong/qinglong/internal/core/qlerror"

// The reasons a panel's folder is refused whole.
const (
	// RefusalNotPanel is a folder holding no panel database
	// (db/database.sqlite), or a file there that is no SQLite database:
	// dir, why.
	RefusalNotPanel qlerror.Reason = "qinglong_not_panel"
	// RefusalSchema is a panel database lacking a table or column this
	// reader needs (a panel version it does not know): table, column.
	RefusalSchema qlerror.Reason = "qinglong_schema_unknown"
	// RefusalBusy is a panel database with a write in progress (its
	// journal or write-ahead log beside it): file.
	RefusalBusy qlerror.Reason = "qinglong_panel_busy"
	// RefusalNotDatabase is an uploaded file that is no SQLite database:
	// name, the file's name as sent.
	RefusalNotDatabase qlerror.Reason = "qinglong_not_database"
)

func notPanel(dir, why string) error {
	return qlerror.New(qlerror.Invalid, "%s is not a qinglong panel's data folder: %s; give the folder the panel keeps as /ql/data (holding db/database.sqlite, config and scripts), or a copy of it", dir, why).
		Because(RefusalNotPanel, "dir", dir, "why", why)
}

func notDatabase(name string) error {
	return qlerror.New(qlerror.Invalid, "the file %s is no SQLite database, so no qinglong panel's: upload the panel's %s (in its /ql/data), copied while the panel was stopped", name, DBFile).
		Because(RefusalNotDatabase, "name", name)
}

func unknownSchema(table, column string) error {
	what := "table " + table
	if column != "" {
		what = "column " + column + " of table " + table
	}
	return qlerror.New(qlerror.Invalid, "the panel's database has no %s: it is of a qinglong version this import does not know; upgrade the panel (it adds what it lacks at start), stop it, and import its folder again", what).
		Because(RefusalSchema, "table", table, "column", column)
}

func busy(file string) error {
	return qlerror.New(qlerror.FailedPrecondition, "%s is beside the panel's database: the panel is writing it (or stopped in the middle of a write), and a read now could see half of that write; "+
		"stop the panel (docker stop) and import again, or copy the folder while the panel is stopped and import the copy", file).
		Because(RefusalBusy, "file", file)
}
