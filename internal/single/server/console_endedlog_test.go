package server

import (
	"database/sql"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// longScript prints 20,000 numbered lines (about 210 KB, more than a
// page holds) and then a last line of bytes a page must escape or show
// otherwise: markup, an entity, an ANSI colour (ESC), a control character,
// a CR LF and two bytes that are no UTF-8.
const longScript = `i=0; while [ $i -lt 20000 ]; do i=$((i+1)); echo "line $i"; done; printf '<b>&amp;\033[31m\001\r\n\377\376 end\n'`

// longOutput is what longScript prints, and longShown how its last line
// reads on a page.
func longOutput() (raw, lastShown string) {
	var b strings.Builder
	for i := 1; i <= 20000; i++ {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	return b.String() + "<b>&amp;\x1b[31m\x01\r\n\xff\xfe end\n", "<b>&amp;␛[31m␁\n\uFFFD\uFFFD end\n"
}

var logPre = regexp.MustCompile(`(?s)<pre id="log"([^>]*)>(.*?)</pre>`)

// endedRun runs the site's trigger now and returns the Run's id once it
// has ended.
func (s *consoleSite) endedRun(t *testing.T, c *http.Client, csrf string) string {
	t.Helper()
	id := s.runNow(t, c, csrf)
	waitFor(t, "the Run to end", 20*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, s.base+"/runs/"+id, nil)
		return strings.Contains(page, `data-state="succeeded"`)
	})
	return id
}

// An ended attempt's output is on its Run's page as the server sends it,
// so the page shows it with scripts off and on its first paint: its last
// 64 KiB, from the start of a line, escaped, every byte visible (a byte of
// no character as U+FFFD, a control character as its symbol, a CR LF as
// a line's end), and a note in the page's language saying how many bytes
// before it are left out and how to read the whole log: its download
// first, then the CLI and the API. The page gives the
// script no stream to follow for it.
func TestAnEndedAttemptsOutputIsOnItsRunsPage(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, longScript)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.endedRun(t, c, csrf)
	raw, last := longOutput()
	for lang, note := range map[string]string{
		"en": keptFlags("Only the end of this attempt&#39;s output is shown: its first %d bytes are left out. <a class=\"log-download-whole\" href=\"/runs/" + id + "/download?attempt=1\">Download the whole log</a>, or read it with <code>ql runs logs " + id + " --attempt 1 --data-dir "),
		"zh": keptFlags("这里只显示该尝试输出的末尾：前面的 %d 字节未显示。<a class=\"log-download-whole\" href=\"/runs/" + id + "/download?attempt=1\">下载完整日志</a>，或用 <code>ql runs logs " + id + " --attempt 1 --data-dir "),
	} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang="+lang, nil)
		m := logPre.FindStringSubmatch(page)
		if resp.StatusCode != http.StatusOK || m == nil {
			t.Fatalf("the ended Run's page in %s: %d, no log:\n%s", lang, resp.StatusCode, page)
		}
		if strings.Contains(m[1], "data-stream") {
			t.Errorf("the ended attempt's log in %s offers the script a stream (%s): its bytes would show twice", lang, m[1])
		}
		shown := html.UnescapeString(m[2])
		if !strings.HasSuffix(shown, "line 20000\n"+last) || !strings.HasPrefix(shown, "line ") {
			t.Fatalf("the page in %s shows %q … %q; want whole lines up to the last, escaped and visible", lang, shown[:min(len(shown), 40)], shown[max(0, len(shown)-80):])
		}
		omitted := strings.Index(raw, strings.TrimSuffix(shown, last))
		if omitted <= 0 || len(raw)-omitted > 64<<10 || len(raw)-omitted < 60<<10 || raw[omitted-1] != '\n' {
			t.Fatalf("the page in %s shows the output from byte %d of %d; want about its last 64 KiB, from a line's start", lang, omitted, len(raw))
		}
		if want := strings.Replace(note, "%d", strconv.Itoa(omitted), 1); !strings.Contains(page, want) {
			t.Errorf("the page in %s does not say %q:\n%s", lang, want, page[:strings.Index(page, `<pre id="log"`)])
		}
		if !strings.Contains(page, "GET /api/v1/runs/"+id+"/log?attempt=1") {
			t.Errorf("the page in %s does not name the API's log route", lang)
		}
		if len(page) > 200<<10 {
			t.Errorf("the page in %s is %d bytes; want it bounded by the output it shows", lang, len(page))
		}
	}
}

// When the page cannot show an ended attempt's last bytes, it says why in
// its language: the log is longer than its attempt's record says (it then
// shows the log's first 64 KiB, says more follow and how to read them),
// the attempt wrote nothing, or log retention removed the log.
func TestARunsPageSaysWhatOfAnEndedAttemptsOutputItDoesNotShow(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, longScript)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.endedRun(t, c, csrf)
	db, err := sql.Open("sqlite", LayoutOf(site.dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var attempt string
	if err := db.QueryRow(`SELECT id FROM attempts WHERE run_id = ?`, id).Scan(&attempt); err != nil {
		t.Fatal(err)
	}
	raw, _ := longOutput()
	for _, tc := range []struct {
		name, change, lang, says, shown string
	}{
		{"a log longer than its record", `UPDATE attempts SET log_bytes = 1000`, "en",
			keptFlags("The output goes on past what is shown here. <a class=\"log-download-whole\" href=\"/runs/" + id + "/download?attempt=1\">Download the whole log</a>, or read it with <code>ql runs logs " + id + " --attempt 1"), raw[:strings.LastIndexByte(raw[:64<<10], '\n')+1]},
		{"an attempt that wrote nothing", `UPDATE attempts SET log_bytes = 0`, "zh", "没有输出。", ""},
		{"a log retention removed", `UPDATE attempts SET log_bytes = 4321, log_path = ''`, "zh", "日志保留策略已删除该尝试的输出（它有 4321 字节）。", ""},
	} {
		if _, err := db.Exec(tc.change); err != nil {
			t.Fatal(err)
		}
		if tc.name == "an attempt that wrote nothing" {
			if err := os.Truncate(filepath.Join(LayoutOf(site.dir).Logs, attempt+".log"), 0); err != nil {
				t.Fatal(err)
			}
		}
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang="+tc.lang, nil)
		shown := ""
		if m := logPre.FindStringSubmatch(page); m != nil {
			shown = html.UnescapeString(m[2])
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(html.UnescapeString(page), tc.says) || !strings.HasPrefix(shown, tc.shown) || len(shown) > 64<<10 {
			t.Errorf("%s: %d, showing %d bytes; want %q and the output from %q:\n%s", tc.name, resp.StatusCode, len(shown), tc.says, tc.shown[:min(len(tc.shown), 20)], page)
		}
	}
}

// The note QingLong writes last into the log of a command it stopped
// reads on the Run's page in the page's language, on a Chinese page in
// Chinese and none of the English; the log itself keeps it in English,
// as the API (and `ql runs logs`) give it.
func TestAStoppedCommandsNoteReadsInThePagesLanguageAndTheLogKeepsItsWords(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	waitFor(t, "the command to print its first line", 20*time.Second, func() bool {
		status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/runs/"+id+"/log", site.tokens[apitoken.Read], nil)
		return status == http.StatusOK && strings.Contains(string(body), "line 1\n")
	})
	site.cancel(t, c, csrf, id)
	waitFor(t, "the Run to be cancelled", 20*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id, nil)
		return strings.Contains(page, `data-state="cancelled"`)
	})
	const note = "[qinglong: the command was stopped: the run was asked to cancel (SIGTERM; it ended within the kill grace of "
	status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/runs/"+id+"/log", site.tokens[apitoken.Read], nil)
	if status != http.StatusOK || !strings.Contains(string(body), "\n"+note) || !strings.HasSuffix(string(body), ")]\n") {
		t.Fatalf("the cancelled Run's log: %d %q; want it to end with the note %q…", status, body, note)
	}
	for _, l := range []struct{ lang, want, not string }{
		{"en", `<span id="log-stop">` + note, "青龙"},
		{"zh", `<span id="log-stop">[青龙：命令已被停止：运行被要求取消（已发送 SIGTERM，它在 `, "the command was stopped"},
	} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang="+l.lang, nil)
		m := logPre.FindStringSubmatch(page)
		if m == nil || !strings.Contains(m[2], "line 1\n") || !strings.Contains(m[2], l.want) || strings.Contains(m[2], l.not) {
			t.Errorf("the cancelled Run's page in %s shows the log %q; want its output and the note %q, nothing of %q", l.lang, m, l.want, l.not)
		}
	}
}
