package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/databackup"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// backupPath is the route of a backup archive's download.
const backupPath = "/api/v1/backup"

// The log codes of a backup archive sent over the API: whole, or cut off
// after its first bytes (the client went away, a file could not be read).
const (
	CodeBackupDownloaded = "api.backup_downloaded"
	CodeBackupCut        = "api.backup_cut"
)

var errNoBackup = qlerror.New(qlerror.FailedPrecondition, "this server's database is PostgreSQL's, which the API does not back up: "+
	"back it up with `pg_dump --format=custom --schema=qinglong` as a superuser (docs/operations.md, \"Backup and restore\")").Because(RefusalNotOverTheAPI)

// backupDownload sends a backup archive of the data directory (what `ql
// backup DIR` writes, as a gzipped tar), written as it is made. What can
// be refused — the write hold, another backup under way, a disk without
// room for the database's copy — is refused before the first byte, as an
// API error; a failure after it cuts the connection, so the client sees
// an archive cut short rather than a whole one. The database's copy is
// removed however it ends, and the audit trail records who took it.
func (a *api) backupDownload(w http.ResponseWriter, r *http.Request) {
	if _, err := params(r.URL.Query()); err != nil {
		a.writeError(w, r, err)
		return
	}
	if a.Backup == nil {
		a.writeError(w, r, errNoBackup)
		return
	}
	if err := hold.Held(a.Writes); err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/gzip")
	if r.Method == http.MethodHead {
		// The name a GET now would send, without the database's copy a
		// GET makes: a HEAD neither takes the one backup nor is recorded.
		w.Header().Set("Content-Disposition", `attachment; filename="`+a.Backup.Name()+`"`)
		w.WriteHeader(http.StatusOK)
		return
	}
	start := time.Now()
	arch, err := a.Backup.Begin(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	closeArchive := func() {
		if err := arch.Close(); err != nil {
			a.Log.Error("could not remove a backup's working copy", slog.String("code", CodeBackupCut), slog.String("archive", arch.Name()), slog.String("err", err.Error()))
		}
	}
	// Closed once written, before the record, so that the working copy is
	// gone by the time the trail says the download ended; deferred too,
	// for a handler that never gets there.
	defer closeArchive()
	w.Header().Set("Content-Disposition", `attachment; filename="`+arch.Name()+`"`)
	w.WriteHeader(http.StatusOK)
	sent, err := arch.WriteTo(r.Context(), httpserve.LongAnswer(w))
	closeArchive()
	actor := principalOf(r.Context()).actor()
	a.recordBackup(databackup.Downloaded(actor, arch.Name(), sent, time.Since(start), err == nil))
	if err != nil {
		a.Log.Warn("a backup download was cut off", slog.String("code", CodeBackupCut), slog.String("archive", arch.Name()), slog.Int64("sent", sent), slog.String("actor", actor), slog.String("err", err.Error()))
		panic(http.ErrAbortHandler)
	}
	a.Log.Info("backup downloaded", slog.String("code", CodeBackupDownloaded), slog.String("archive", arch.Name()), slog.Int64("bytes", sent), slog.String("actor", actor))
}

// recordBackup writes e in the audit trail through the write hold; a
// record the hold or the store refuses is logged with who took the
// archive, which went all the same.
func (a *api) recordBackup(e audit.Entry) {
	if a.BackupRecord == nil {
		return
	}
	done, err := hold.Admit(a.Writes)
	if err == nil {
		// The request's context ends with a client that went away; the
		// record of the download it cut off is written all the same.
		ctx, cancel := context.WithTimeout(context.Background(), a.RequestTimeout)
		err = a.BackupRecord.AuditAppend(ctx, e)
		cancel()
		done()
	}
	if err != nil {
		a.Log.Error("backup download not recorded", slog.String("code", audit.CodeNotRecorded), slog.String("action", string(e.Action)), slog.String("archive", e.ObjectName),
			slog.String("note", e.Note), slog.String("actor", e.Actor), slog.String("error", err.Error()))
	}
}
