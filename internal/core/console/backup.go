package console

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/databackup"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// backupData is what the Backup page shows: whether this server keeps
// its data directory (a cluster replica's database is PostgreSQL's), and
// what an archive made now would hold.
type backupData struct {
	Here     bool
	Estimate databackup.Estimate
	// The estimate's sizes as people read them, and its data directory
	// as a shell takes it.
	DBSize, LogsSize, SecretsSize, TotalSize, Dir string
	// LogFiles counts the log files in the page's language.
	LogFiles string
	// EstimateError is why the estimate could not be read, in the page's
	// language; the download is still offered.
	EstimateError string
}

// backupPage says what a backup archive holds, about how large it would
// be, how to restore it, and offers the download; on a server without a
// data directory, how its database is backed up instead.
func (c *Console) backupPage(w http.ResponseWriter, r *http.Request, s *session) {
	d := backupData{Here: c.cfg.Backup != nil}
	if d.Here {
		e, err := c.cfg.Backup.Estimate(r.Context())
		if err != nil {
			d.EstimateError = c.errorText(lang(r), err)
		}
		d.Estimate = e
		d.DBSize, d.LogsSize, d.SecretsSize, d.TotalSize = databackup.Size(e.DBBytes), databackup.Size(e.LogBytes), databackup.Size(e.SecretsBytes), databackup.Size(e.Bytes())
		d.Dir = shellquote.Quote(e.DataDir)
		d.LogFiles = fmt.Sprintf(trCount(lang(r), "bk.files", e.Logs), e.Logs)
	}
	c.render(w, r, http.StatusOK, "backup", s, d)
}

// backupDownload sends a backup archive of the data directory as a file
// to save, written as it is made. Everything that can be refused — the
// write hold, another backup under way, a disk without room for the
// database's copy, the copy itself — is refused before the first byte, as
// a page in the request's language. A failure after it cuts the
// connection, so the browser says the download failed rather than keep a
// shorter file; however it ends, the database's copy is removed before
// the handler returns. The audit trail records who took it, its size and
// how long it took.
//
// The write hold is asked at the start, as a form's, and again for the
// record at the end, rather than held open across a download that may
// last minutes: a hold must not wait for a download to end to begin.
func (c *Console) backupDownload(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Backup == nil {
		c.backupPage(w, r, s)
		return
	}
	if err := hold.Held(c.cfg.Writes); err != nil {
		c.fail(w, r, s, err)
		return
	}
	start := time.Now()
	arch, err := c.cfg.Backup.Begin(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	closeArchive := func() {
		if err := arch.Close(); err != nil {
			c.cfg.Log.Error("console: could not remove a backup's working copy", "code", CodeBackupCut, "archive", arch.Name(), "err", err)
		}
	}
	// Closed once written, before the record, so that the working copy is
	// gone by the time the trail says the download ended; deferred too,
	// for a handler that never gets there.
	defer closeArchive()
	h := w.Header()
	h.Set("Content-Type", "application/gzip")
	h.Set("Content-Disposition", `attachment; filename="`+arch.Name()+`"`)
	w.WriteHeader(http.StatusOK)
	sent, err := arch.WriteTo(r.Context(), httpserve.LongAnswer(w))
	closeArchive()
	actor := s.actor(r)
	c.recordBackup(actor, databackup.Downloaded(actor, arch.Name(), sent, time.Since(start), err == nil))
	if err != nil {
		c.cfg.Log.Warn("console: a backup download was cut off", "code", CodeBackupCut, "archive", arch.Name(), "sent", sent, "actor", actor, "err", err)
		panic(http.ErrAbortHandler)
	}
	c.cfg.Log.Info("console: backup downloaded", "code", CodeBackupDownloaded, "archive", arch.Name(), "bytes", sent, "actor", actor)
}

// recordBackup writes e in the audit trail through the write hold; a
// record the hold or the store refuses is logged with who took the
// archive, which went all the same.
func (c *Console) recordBackup(actor string, e audit.Entry) {
	if c.cfg.BackupRecord == nil {
		return
	}
	done, err := hold.Admit(c.cfg.Writes)
	if err == nil {
		// The request's context ends with a browser that went away; the
		// record of the download it cut off is written all the same.
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.RequestTimeout)
		err = c.cfg.BackupRecord.AuditAppend(ctx, e)
		cancel()
		done()
	}
	if err != nil {
		c.cfg.Log.Error("console: backup download not recorded", "code", audit.CodeNotRecorded, "action", string(e.Action), "archive", e.ObjectName, "note", e.Note, "actor", actor, "error", err.Error())
	}
}
