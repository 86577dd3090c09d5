package server

import (
	"bytes"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/databackup"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// backupSecrets is the secrets file of the backup tests' sites.
const backupSecrets = `{"shop/api_key": "backup-v4lue-Zq8"}`

// startBackupSite is a console site whose trigger ran once (its Run
// finished, with a log) and whose data directory has a secrets file; it
// returns an admin's client, its CSRF token and the Run's id.
func startBackupSite(t *testing.T) (site *consoleSite, c *http.Client, csrf, runID string) {
	t.Helper()
	site = startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, "echo backed up line")
	if err := os.WriteFile(LayoutOf(site.dir).Secrets, []byte(backupSecrets), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := site.srv.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: site.triggerID, RequestID: ids.New(), Actor: "test"})
	if err != nil || res.RunID == "" {
		t.Fatalf("run now: %+v %v", res, err)
	}
	waitFor(t, "the Run to finish", time.Minute, func() bool {
		d, err := site.srv.store.RunGet(t.Context(), res.RunID)
		return err == nil && d.Run.State.Finished()
	})
	c = consoleClient(t)
	return site, c, site.signIn(t, c, site.tokens[apitoken.Admin]), res.RunID
}

// downloadBackup asks the console for a backup archive.
func downloadBackup(t *testing.T, site *consoleSite, c *http.Client, csrf, lang string) *http.Response {
	t.Helper()
	target := site.base + "/backup/download"
	if lang != "" {
		target += "?lang=" + lang
	}
	resp, err := c.PostForm(target, url.Values{"csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// leftovers are the backup downloads' working directories in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(dir, downloadPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return left
}

var archiveName = regexp.MustCompile(`^attachment; filename="qinglong-backup-\d{8}-\d{4}\.tar\.gz"$`)

// A backup downloaded from the console is a data directory: unpacked into
// an empty directory as the page says (tar), a server started on it
// serves the trigger and the Run made before the backup, with the Run's
// log, and the secrets file as it was; the first start says it is a
// backup's copy. The download leaves no working copy behind, and the
// audit trail records who took it and its size, never what it held.
func TestABackupDownloadedFromTheConsoleRestoresAsADataDirectory(t *testing.T) {
	t.Parallel()
	site, c, csrf, runID := startBackupSite(t)
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/backup", nil)
	for _, want := range []string{`id="nav-backup"`, "qinglong-secrets.json", `id="bk-holds-scripts"`, "Keep the archive like a password", "skip-missed", `action="/backup/download"`, "Backup and restore"} {
		if !strings.Contains(page, want) {
			t.Errorf("the Backup page does not say %q:\n%s", want, page)
		}
	}
	scriptsDir := LayoutOf(site.dir).Scripts
	if err := os.MkdirAll(filepath.Join(scriptsDir, "jd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scriptsDir, "jd", "jd_bean.js"), []byte("console.log('bean')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp := downloadBackup(t, site, c, csrf, "")
	archive, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !archiveName.MatchString(resp.Header.Get("Content-Disposition")) || resp.Header.Get("Content-Type") != "application/gzip" {
		t.Fatalf("download: %d %q %q (%v)\n%.300s", resp.StatusCode, resp.Header.Get("Content-Disposition"), resp.Header.Get("Content-Type"), err, archive)
	}
	if left := leftovers(t, site.dir); len(left) > 0 {
		t.Errorf("the download left its working copy behind: %v", left)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	if err := os.Mkdir(restored, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "backup.tar.gz")
	if err := os.WriteFile(file, archive, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"gzip", "-t", file}, {"tar", "-xzf", file, "-C", restored}} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	for _, f := range []string{LayoutOf(restored).DB, LayoutOf(restored).Secrets} {
		if info, err := os.Stat(f); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s in the archive: %v %v; want mode 0600", filepath.Base(f), info, err)
		}
	}
	if info, err := os.Stat(filepath.Join(LayoutOf(restored).Scripts, "jd", "jd_bean.js")); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("the scripts folder's jd/jd_bean.js in the archive: %v %v; want it with mode 0644", info, err)
	}
	if b, err := os.ReadFile(LayoutOf(restored).Secrets); err != nil || string(b) != backupSecrets {
		t.Errorf("the restored secrets file holds %q (%v); want %q", b, err, backupSecrets)
	}

	var logs syncbuf.Buffer
	srv, err := Start(t.Context(), Config{DataDir: restored, Cadence: 250 * time.Millisecond, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("a server on the unpacked archive: %v", err)
	}
	stopAtCleanup(t, srv)
	if _, err := srv.store.TriggerDetail(t.Context(), site.triggerID, 1); err != nil {
		t.Errorf("the trigger made before the backup, on the restored server: %v", err)
	}
	d, err := srv.store.RunGet(t.Context(), runID)
	if err != nil || !d.Run.State.Finished() || len(d.Attempts) == 0 {
		t.Fatalf("the Run made before the backup, on the restored server: %+v %v", d.Run, err)
	}
	var out bytes.Buffer
	if _, _, err := (&Backend{Layout: srv.layout}).ReadLog(t.Context(), d.Attempts[0].ID, 0, 1<<20, &out); err != nil || !strings.Contains(out.String(), "backed up line") {
		t.Errorf("the Run's log on the restored server: %q %v", out.String(), err)
	}
	if !strings.Contains(logs.String(), CodeRestoredFromBackup) {
		t.Errorf("the first start on the unpacked archive does not say it is a backup's copy:\n%s", logs.String())
	}

	p, err := site.srv.store.AuditList(t.Context(), audit.Query{Action: audit.BackupDownloaded})
	if err != nil || len(p.Records) != 1 {
		t.Fatalf("audit records of the download: %+v %v; want one", p.Records, err)
	}
	r := p.Records[0]
	name := strings.TrimSuffix(strings.TrimPrefix(resp.Header.Get("Content-Disposition"), `attachment; filename="`), `"`)
	if r.Actor != "console:token:console-admin@127.0.0.1" || r.ObjectKind != audit.KindBackup || r.ObjectName != name || !strings.HasPrefix(r.Note, databackup.Size(int64(len(archive)))+" sent in ") {
		t.Errorf("audit record %+v; want the admin, the archive %s and its size %d", r, name, len(archive))
	}
	if strings.Contains(r.Note+r.ObjectName+r.ObjectID, "v4lue") || strings.Contains(r.Note, "backed up line") {
		t.Errorf("the audit record holds what the archive held: %+v", r)
	}
}

// A backup asked for while another of the same server is being made is
// refused before anything is copied, 409 backup_in_progress saying to
// wait, in English and in Chinese; once the first ends, the next one is
// made.
func TestASecondBackupWhileOneIsMadeIsRefused(t *testing.T) {
	t.Parallel()
	site, c, csrf, _ := startBackupSite(t)
	first, err := site.srv.backups.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{"en": "another backup of this server is being made (one at a time)", "zh": "此服务器正在做另一份备份（同一时间只做一份）"} {
		resp := downloadBackup(t, site, c, csrf, lang)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), want) {
			t.Errorf("a second backup (%s): %d; want 409 saying %q:\n%.2000s", lang, resp.StatusCode, want, body)
		}
	}
	if left := leftovers(t, site.dir); len(left) != 1 {
		t.Errorf("working copies %v; want only the first backup's", left)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	resp := downloadBackup(t, site, c, csrf, "")
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a backup once the first ended: %d; want 200", resp.StatusCode)
	}
}

// A browser that goes away in the middle of a download leaves nothing
// behind: the working copy is removed, the next backup may begin, and the
// audit trail records the download as cut off. The archive is made larger
// than the connection's buffers hold (a log of random bytes, which do not
// compress), so the server is still writing when the browser leaves.
func TestABackupDownloadCutOffByTheBrowserLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	site, c, csrf, runID := startBackupSite(t)
	d, err := site.srv.store.RunGet(t.Context(), runID)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 48<<20)
	_, _ = rand.Read(big)
	if err := os.WriteFile(filepath.Join(LayoutOf(site.dir).Logs, d.Attempts[0].ID+".log"), big, 0o600); err != nil {
		t.Fatal(err)
	}
	resp := downloadBackup(t, site, c, csrf, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("download: %d", resp.StatusCode)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	var cut []audit.Record
	waitFor(t, "the cut-off download's audit record", time.Minute, func() bool {
		p, err := site.srv.store.AuditList(t.Context(), audit.Query{Action: audit.BackupDownloaded})
		cut = p.Records
		return err == nil && len(cut) > 0
	})
	if !strings.HasPrefix(cut[0].Note, "cut off after ") {
		t.Errorf("the record of a download the browser left: %q; want it cut off", cut[0].Note)
	}
	if left := leftovers(t, site.dir); len(left) > 0 {
		t.Errorf("the cut-off download left its working copy behind: %v", left)
	}
	next, err := site.srv.backups.Begin(t.Context())
	if err != nil {
		t.Fatalf("a backup after the cut-off one: %v", err)
	}
	_ = next.Close()
}

// A backup whose database copy the data directory's disk has no room for
// is refused before anything is copied, backup_no_space naming the disk,
// the room it needs and the room it has: here a database file (sparse, so
// it takes no room itself) larger than the disk's free space.
func TestABackupWithoutRoomForTheDatabaseCopyIsRefused(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	l := LayoutOf(dir)
	free, err := freeBytes(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(l.DB, free+free/2); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot make a sparse file larger than the disk's free space: %v", err)
		}
		t.Skipf("cannot make a sparse file larger than the disk's free space here: %v", err)
	}
	a := &archives{layout: l, nowMs: func() int64 { return time.Now().UnixMilli() }}
	_, err = a.Begin(t.Context())
	if qlerror.ReasonOf(err) != databackup.RefusalNoSpace || qlerror.CodeOf(err) != qlerror.FailedPrecondition || !strings.Contains(err.Error(), "free space on that disk") {
		t.Fatalf("a backup without room: %v; want %s saying to free space", err, databackup.RefusalNoSpace)
	}
	if left := leftovers(t, dir); len(left) > 0 {
		t.Errorf("the refused backup made a working copy: %v", left)
	}
	if !a.busy.CompareAndSwap(false, true) {
		t.Error("the refused backup kept the server's one backup")
	}
}

// A working copy a server killed mid-download left in the data directory
// is removed as the next server starts: it holds the database's copy.
func TestAStartRemovesTheWorkingCopyOfABackupCutOffByAStop(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	left := filepath.Join(dir, downloadPrefix+"123")
	if err := os.MkdirAll(left, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "qinglong.db"), []byte("copy"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(t.Context(), Config{DataDir: dir, Cadence: time.Hour, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	if got := leftovers(t, dir); len(got) > 0 {
		t.Errorf("the start left %v", got)
	}
}

// While the server holds its writes for a clock behind the database, a
// backup is refused before anything is copied, as every audited action
// is: its audit record would be dated by that clock. The page says why.
func TestABackupIsRefusedWhileTheClockHoldsWrites(t *testing.T) {
	t.Parallel()
	site := startClockSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	site.setBack(t)
	resp := downloadBackup(t, site.consoleSite, c, csrf, "zh")
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "此服务器现在不接受写入") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a backup while the clock holds writes: %d; want 503 clock_behind_database in Chinese with a Retry-After:\n%.2000s", resp.StatusCode, body)
	}
	if left := leftovers(t, site.dir); len(left) > 0 {
		t.Errorf("the refused backup made a working copy: %v", left)
	}
}

// GET /api/v1/backup sends an admin token the archive the console sends;
// a token bound to projects is refused 403 project_not_in_scope, whatever
// its scope, since the archive holds every project; and the API and the
// console make one backup at a time between them: one under way refuses
// the API's 409 backup_in_progress.
func TestTheBackupRouteServesAnAdminOfEveryProjectOneAtATime(t *testing.T) {
	t.Parallel()
	site, _, _, _ := startBackupSite(t)
	bound, _, err := apitoken.Create(t.Context(), site.srv.store, "tester", ids.New(), "shop-admin", apitoken.Admin, 0, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/backup", bound, nil); status != http.StatusForbidden || !strings.Contains(string(body), string(apitoken.RefusalProjectNotInScope)) {
		t.Errorf("GET /api/v1/backup with a token bound to shop: %d %.300s; want 403 %s", status, body, apitoken.RefusalProjectNotInScope)
	}
	status, body, h := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/backup", site.tokens[apitoken.Admin], nil)
	if status != http.StatusOK || !archiveName.MatchString(h.Get("Content-Disposition")) || len(body) < 100 {
		t.Fatalf("GET /api/v1/backup with an admin token: %d %q, %d bytes", status, h.Get("Content-Disposition"), len(body))
	}
	first, err := site.srv.backups.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Close() }()
	if status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/backup", site.tokens[apitoken.Admin], nil); status != http.StatusConflict || !strings.Contains(string(body), string(databackup.RefusalBusy)) {
		t.Errorf("GET /api/v1/backup while another backup is made: %d (%d bytes); want 409 %s", status, len(body), databackup.RefusalBusy)
	}
}
