package server

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// The reasons a server refuses a data directory that holds the remains of
// another one but not its database: serving it would create a new, empty
// database beside them, as quietly as it serves the real one, and nothing
// would ever run.
const (
	// RefusalBackupCutOff: the directory is a backup cut off before its
	// end (it still holds PartialBackup).
	RefusalBackupCutOff qlerror.Reason = "backup_cut_off"
	// RefusalLogsWithoutDatabase: the directory holds attempts' logs but
	// no database.
	RefusalLogsWithoutDatabase qlerror.Reason = "logs_without_database"
)

// checkNotRemains refuses to serve a data directory that holds what a
// database leaves (a cut-off backup's partial directory, attempts' logs)
// without a database file: a restore that copied too little, or a
// --data-dir pointing at the wrong copy. A secrets file alone is not
// refused: `secrets set` before the first start writes it. It writes
// nothing.
func checkNotRemains(l Layout, dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, PartialBackup)); err == nil {
		return qlerror.New(qlerror.Invalid,
			"%s is a backup cut off before its end (it still holds %s; a whole backup holds qinglong.db and no %s): restore the latest whole backup instead "+
				"(test -f DIR/qinglong.db && ! test -e DIR/%s), copied to the data directory's path (\"Backup and restore\"), or remove this directory and back up again", dir, PartialBackup, PartialBackup, PartialBackup).
			Because(RefusalBackupCutOff, "dataDir", dir)
	}
	if _, err := os.Lstat(l.DB); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	entries, err := os.ReadDir(l.Logs)
	if err != nil || len(entries) == 0 {
		return nil
	}
	return qlerror.New(qlerror.Invalid,
		"%s holds attempts' logs (%s) but no database (%s): a new, empty one would be created beside them; if this directory should hold your data, "+
			"restore its database from a backup (\"Backup and restore\"), or give --data-dir the directory that holds it; to start a new, empty database here deliberately, "+
			"move the logs aside first (mv %s %s)", dir, l.Logs, l.DB, shellquote.Quote(l.Logs), shellquote.Quote(l.Logs+".old")).
		Because(RefusalLogsWithoutDatabase, "dataDir", dir, "logs", l.Logs)
}
