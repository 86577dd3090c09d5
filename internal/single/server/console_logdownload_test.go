package server

import (
	"database/sql"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// attemptLog is the path of the log file of the only attempt of Run id,
// as the server wrote it.
func (s *consoleSite) attemptLog(t *testing.T, id string) string {
	t.Helper()
	db, err := sql.Open("sqlite", LayoutOf(s.dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var attempt string
	if err := db.QueryRow(`SELECT id FROM attempts WHERE run_id = ?`, id).Scan(&attempt); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(LayoutOf(s.dir).Logs, attempt+".log")
}

// wantDownload fails the test unless resp and body are the download of a
// log holding want, named as attempt 1 of the site's trigger's Run id,
// with its length when sized.
func wantDownload(t *testing.T, resp *http.Response, body, want, id string, sized bool) {
	t.Helper()
	h := resp.Header
	if resp.StatusCode != http.StatusOK || body != want {
		t.Fatalf("the download: %d, %d bytes; want the %d bytes of the log as stored", resp.StatusCode, len(body), len(want))
	}
	for k, v := range map[string]string{
		"Content-Type":           "text/plain; charset=utf-8",
		"Content-Disposition":    `attachment; filename="shop-nightly-` + id + `-attempt-1.log"`,
		"X-Content-Type-Options": "nosniff",
		"Cache-Control":          "no-store",
	} {
		if h.Get(k) != v {
			t.Errorf("the download's %s is %q, want %q", k, h.Get(k), v)
		}
	}
	// Unsized, the answer says no length of its own; Go's server gives one
	// to an answer short enough to be whole in its buffer when the handler
	// returns.
	if length := h.Get("Content-Length"); sized && length != strconv.Itoa(len(want)) || !sized && length != "" && length != strconv.Itoa(len(body)) {
		t.Errorf("the download's Content-Length is %q; want the log's length (%d) %v", length, len(want), sized)
	}
}

// Each attempt's row on its Run's page links its whole log as a file, in
// English and Chinese, and the note saying what the page leaves out of an
// ended attempt's output points at that download first, then at the CLI
// and the API. The download is the log file byte for byte — over 64 KiB,
// with its bytes of no UTF-8 character as they are, none replaced — with
// its length, as text/plain and an attachment named after the project,
// trigger, Run and attempt. Once log retention removed the log, its row
// offers no link but says so, and the download's address answers 410
// saying what the log held and when its Run ended, in the page's language,
// the time whole on its line and in the viewer's zone as every other.
func TestAnAttemptsWholeLogDownloadsFromItsRunPageAsStored(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, longScript)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.endedRun(t, c, csrf)
	link := `href="/runs/` + id + `/download?attempt=1"`
	for lang, want := range map[string][]string{
		"en": {`class="log-download" ` + link, ">Download log</a>", keptFlags(`class="log-download-whole" ` + link + ">Download the whole log</a>, or read it with <code>ql runs logs " + id + " --attempt 1 --data-dir ")},
		"zh": {`class="log-download" ` + link, ">下载日志</a>", keptFlags(`class="log-download-whole" ` + link + ">下载完整日志</a>，或用 <code>ql runs logs " + id + " --attempt 1 --data-dir ")},
	} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang="+lang, nil)
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("the ended Run's page in %s does not hold %q:\n%s", lang, w, page)
			}
		}
	}
	file := site.attemptLog(t, id)
	stored, err := os.ReadFile(file)
	raw, _ := longOutput()
	if err != nil || string(stored) != raw {
		t.Fatalf("the log file: %v, %d bytes; want the %d bytes the script printed", err, len(stored), len(raw))
	}
	resp, body := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"/download?attempt=1", nil)
	wantDownload(t, resp, body, raw, id, true)
	if !strings.Contains(body, "\r\n\xff\xfe end\n") {
		t.Fatalf("the download does not keep the bytes of no UTF-8 character as they are: ends %q", body[len(body)-20:])
	}

	db, err := sql.Open("sqlite", LayoutOf(site.dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE attempts SET log_path = '' WHERE run_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	held := strconv.Itoa(len(raw))
	// The Run's end, as every time of the console: whole on its line, in
	// the viewer's zone with its offset.
	detail, err := site.srv.store.RunGet(t.Context(), id)
	if err != nil || detail.Run.FinishedAtMs == nil {
		t.Fatalf("the ended Run: %+v, %v", detail.Run, err)
	}
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	endedAt := `<span class="time">` + time.UnixMilli(*detail.Run.FinishedAtMs).In(shanghai).Format("2006-01-02 15:04:05") + " UTC+08:00</span>"
	for lang, says := range map[string][]string{
		"en": {`<span class="log-gone">removed by log retention</span>`, "Log retention removed the output of attempt 1 of run " + id + " (it held " + held + " bytes): there is nothing left to download.", " The run ended at " + endedAt + "; "},
		"zh": {`<span class="log-gone">已被日志保留策略删除</span>`, "日志保留策略已删除运行 " + id + " 第 1 次尝试的输出（它有 " + held + " 字节），没有可下载的内容。", "该运行于 " + endedAt + " 结束"},
	} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang="+lang, nil)
		if strings.Contains(page, "/download?") || !strings.Contains(page, says[0]) {
			t.Errorf("the Run's page in %s once retention removed the log: want no download, its row saying %q:\n%s", lang, says[0], page)
		}
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"/download?attempt=1&tz=Asia/Shanghai&lang="+lang, nil)
		if resp.StatusCode != http.StatusGone || !strings.Contains(page, says[1]) || !strings.Contains(html.UnescapeString(page), says[2]) || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("the download in %s once retention removed the log: %d; want 410, a page saying %q and when the Run ended, whole and in the viewer's zone (%s):\n%s", lang, resp.StatusCode, says[1], says[2], page)
		}
	}
}

// A log cut at its size cap downloads as it is stored: the bytes kept and
// the truncation marker after them, with its length.
func TestACappedLogDownloadsWithItsTruncationMarker(t *testing.T) {
	t.Parallel()
	const capBytes = 100 << 10
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, longScript,
		func(c *Config) { c.LogCapBytes = capBytes })
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.endedRun(t, c, csrf)
	raw, _ := longOutput()
	want := raw[:capBytes] + string(run.TruncationMarker(capBytes))
	stored, err := os.ReadFile(site.attemptLog(t, id))
	if err != nil || string(stored) != want {
		t.Fatalf("the log file: %v, %d bytes; want the %d bytes kept and the marker", err, len(stored), capBytes)
	}
	resp, body := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"/download?attempt=1", nil)
	wantDownload(t, resp, body, want, id, true)
}

// A running attempt's row offers what its log holds so far, saying so,
// and its download is that, without a length; an attempt number the Run
// does not have is a 404 naming the ones it has, one that is no number a
// 400, a Run id that is none a 400 and a Run that does not exist a 404,
// each a page in the page's language; a browser signed out is sent to
// sign in and, signed in, back to the download.
func TestALogDownloadOfARunningAttemptOrOfNoneSaysWhatItGives(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	waitFor(t, "the command to print its first lines", 20*time.Second, func() bool {
		status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/runs/"+id+"/log", site.tokens[apitoken.Read], nil)
		return status == http.StatusOK && strings.Contains(string(body), "line 2\n")
	})
	download := "/runs/" + id + "/download?attempt=1"
	for lang, label := range map[string]string{"en": "Download log (so far)", "zh": "下载日志（截至目前）"} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang="+lang, nil)
		if !strings.Contains(page, `href="`+download+`"`) || !strings.Contains(page, ">"+label+"</a>") {
			t.Errorf("the running Run's page in %s does not offer %q:\n%s", lang, label, page)
		}
	}
	var whole strings.Builder
	for i := 1; i <= 300; i++ {
		whole.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	resp, body := httpcall.Form(t, c, http.MethodGet, site.base+download, nil)
	if !strings.HasPrefix(body, "line 1\nline 2\n") || !strings.HasPrefix(whole.String(), body) {
		t.Fatalf("the running attempt's download: %d %q; want the lines it printed so far", resp.StatusCode, body)
	}
	wantDownload(t, resp, body, body, id, false)

	for _, tc := range []struct {
		path, lang string
		status     int
		says       string
	}{
		{"/runs/" + id + "/download?attempt=2", "en", http.StatusNotFound, "run " + id + " has no attempt 2; its attempts are 1"},
		{"/runs/" + id + "/download?attempt=2", "zh", http.StatusNotFound, "该运行没有第 2 次尝试；它的尝试序号为 1。"},
		{"/runs/" + id + "/download?attempt=x", "en", http.StatusBadRequest, `attempt &#34;x&#34; is not an attempt number`},
		{"/runs/not-a-run/download?attempt=1", "zh", http.StatusBadRequest, "这不是运行 ID：请在“运行”页面选择一个运行（命令行中则使用 <code>ql runs list</code> 列出的 ID）。"},
		{"/runs/" + site.triggerID + "/download?attempt=1", "en", http.StatusNotFound, "run " + site.triggerID + " does not exist"},
	} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+tc.path+"&lang="+tc.lang, nil)
		if resp.StatusCode != tc.status || !strings.Contains(page, tc.says) || resp.Header.Get("Content-Disposition") != "" {
			t.Errorf("%s in %s: %d; want %d, a page saying %q:\n%s", tc.path, tc.lang, resp.StatusCode, tc.status, tc.says, page)
		}
	}

	anon := consoleClient(t)
	resp, _ = httpcall.Form(t, anon, http.MethodGet, site.base+download, nil)
	signin := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || signin != "/signin?next="+url.QueryEscape(download) {
		t.Fatalf("the download signed out: %d to %q; want 303 to sign in and back", resp.StatusCode, signin)
	}
	_, form := httpcall.Form(t, anon, http.MethodGet, site.base+signin, nil)
	resp, _ = httpcall.Form(t, anon, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrfField.FindStringSubmatch(form)[1]}, "token": {site.tokens[apitoken.Read]}, "next": {download}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != download {
		t.Fatalf("the sign-in answered %d to %q; want 303 back to %s", resp.StatusCode, resp.Header.Get("Location"), download)
	}
	resp, body = httpcall.Form(t, anon, http.MethodGet, site.base+download, nil)
	if !strings.HasPrefix(body, "line 1\nline 2\n") {
		t.Fatalf("the download once signed in: %d %q; want the log", resp.StatusCode, body[:min(len(body), 40)])
	}
}
