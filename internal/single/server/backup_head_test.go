package server

import (
	"net/http"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// HEAD /api/v1/backup says what a GET would send — the archive's file
// name and type — without making the database's copy: it is answered
// while another backup holds the server's one (where a GET is refused
// 409), leaves no working copy and is not in the audit trail. The
// console's download is a form (POST), which a HEAD does not stand for:
// 405 naming POST, nothing copied.
func TestAHeadOfTheBackupRouteNamesTheArchiveWithoutCopyingTheDatabase(t *testing.T) {
	t.Parallel()
	site, c, _, _ := startBackupSite(t)
	status, _, get := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/backup", site.tokens[apitoken.Admin], nil)
	if status != http.StatusOK {
		t.Fatalf("GET /api/v1/backup: %d", status)
	}
	first, err := site.srv.backups.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Close() }()
	status, body, head := httpcall.Bearer(t, http.MethodHead, site.base+"/api/v1/backup", site.tokens[apitoken.Admin], nil)
	if status != http.StatusOK || len(body) != 0 || !archiveName.MatchString(head.Get("Content-Disposition")) || head.Get("Content-Type") != get.Get("Content-Type") {
		t.Errorf("HEAD /api/v1/backup while a backup is made: %d, %q %q, %d bytes; want 200 with the disposition and type of a GET (%q %q)",
			status, head.Get("Content-Disposition"), head.Get("Content-Type"), len(body), get.Get("Content-Disposition"), get.Get("Content-Type"))
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodHead, site.base+"/backup/download", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != http.MethodPost || resp.Header.Get("Content-Disposition") != "" {
		t.Errorf("HEAD of the console's download: %d, Allow %q, %q; want 405 naming POST", resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("Content-Disposition"))
	}
	if left := leftovers(t, site.dir); len(left) != 1 {
		t.Errorf("working copies %v; want only the backup under way's", left)
	}
	p, err := site.srv.store.AuditList(t.Context(), audit.Query{Action: audit.BackupDownloaded})
	if err != nil || len(p.Records) != 1 {
		t.Errorf("audit records of downloads: %d %v; want the GET's only", len(p.Records), err)
	}
}
