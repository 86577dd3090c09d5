package server

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/databackup"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A server whose data directory's disk has no room for the database's
// copy refuses the backup before anything is copied, on the console's
// page (in the reader's language) and over the API alike, 409
// backup_no_space: no working copy, no audit record, and the server's
// one backup is free again. The database file is made larger than the
// disk's free space (sparse, so it takes no room itself), as the archive
// maker's own test does.
func TestABackupWithoutRoomIsRefusedOnTheConsoleAndOverTheAPI(t *testing.T) {
	t.Parallel()
	site, c, csrf, _ := startBackupSite(t)
	free, err := freeBytes(site.dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(LayoutOf(site.dir).DB, free+free/2); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot make a sparse file larger than the disk's free space: %v", err)
		}
		t.Skipf("cannot make a sparse file larger than the disk's free space here: %v", err)
	}
	for lang, want := range map[string]string{"en": "free space on that disk", "zh": "请在该磁盘上腾出空间"} {
		resp := downloadBackup(t, site, c, csrf, lang)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), want) || resp.Header.Get("Content-Disposition") != "" {
			t.Errorf("the console's download without room (%s): %d %q; want 409 saying %q:\n%.2000s", lang, resp.StatusCode, resp.Header.Get("Content-Disposition"), want, body)
		}
	}
	status, body, h := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/backup", site.tokens[apitoken.Admin], nil)
	if status != http.StatusConflict || !strings.Contains(string(body), string(databackup.RefusalNoSpace)) || h.Get("Content-Disposition") != "" {
		t.Errorf("GET /api/v1/backup without room: %d %.500s; want 409 %s", status, body, databackup.RefusalNoSpace)
	}
	if left := leftovers(t, site.dir); len(left) > 0 {
		t.Errorf("the refused backups made a working copy: %v", left)
	}
	if p, err := site.srv.store.AuditList(t.Context(), audit.Query{Action: audit.BackupDownloaded}); err != nil || len(p.Records) != 0 {
		t.Errorf("audit records of the refused backups: %+v %v; want none", p.Records, err)
	}
	next, err := site.srv.backups.Begin(t.Context())
	if qlerror.ReasonOf(err) != databackup.RefusalNoSpace {
		t.Errorf("a backup after the refused ones: %v; want %s again, not %s", err, databackup.RefusalNoSpace, databackup.RefusalBusy)
	}
	if next != nil {
		_ = next.Close()
	}
}
