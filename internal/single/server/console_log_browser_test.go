package server

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser behind a proxy that cuts every log stream after a
// second (as a proxy's idle timeout does), the run page's live log shows
// each line of the output once, in order: the browser's EventSource
// reconnects with the last event's id and the stream resumes there.
func TestConsoleLiveLogInABrowserShowsEachLineOnceAcrossReconnects(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	target, err := url.Parse(site.base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	proxy.ErrorLog = log.New(io.Discard, "", 0) // each cut is reported as a read error
	var resumed atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/log") {
			if r.Header.Get("Last-Event-ID") != "" {
				resumed.Add(1)
			}
			cut, cancel := context.WithTimeout(r.Context(), time.Second)
			defer cancel()
			r = r.WithContext(cut)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	browsertest.Step(t, ctx, "sign in through the proxy", chromedp.Navigate(front.URL+"/signin?lang=en"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "Overview"))
	browsertest.Step(t, ctx, "run now and watch the log across the cuts", chromedp.Navigate(front.URL+"/triggers/"+site.triggerID),
		chromedp.WaitVisible(chromedp.ID("runnow")),
		chromedp.Click(chromedp.ID("runnow")),
		chromedp.WaitVisible(chromedp.ID("log")),
		browsertest.WaitText("#log", "line 60\n"))
	shown := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("log")))
	if n := resumed.Load(); n == 0 {
		t.Fatalf("the browser never reconnected with a Last-Event-ID while the log showed %q", shown)
	}
	if !strings.HasPrefix(slowOutput(), shown) {
		t.Fatalf("across %d reconnects the page showed %q; want each line once, in order", resumed.Load(), shown)
	}
	browsertest.Step(t, ctx, "cancel the run", chromedp.Click(chromedp.ID("cancel-ask")), chromedp.Click(chromedp.ID("cancel")), browsertest.WaitText("#run-state", "cancelled"))
}

// In a real browser, an ended Run's page shows its output as the server
// sent it, with scripts on (the script follows no stream for it, so no
// byte shows twice, however long the page stays open) and with scripts
// off; a running Run's page, with scripts on, follows its output live.
func TestAnEndedRunsOutputShowsOnceInABrowserWithOrWithoutScripts(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		`echo 'first <line>'; sleep 2; printf 'second & \033[1mlast\033[0m\n'`)
	const want = "first <line>\nsecond & ␛[1mlast␛[0m\n"
	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(site.base+"/signin?lang=en"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "Overview"))
	browsertest.Step(t, ctx, "run now and watch the output arrive live", chromedp.Navigate(site.base+"/triggers/"+site.triggerID),
		chromedp.WaitVisible(chromedp.ID("runnow")),
		chromedp.Click(chromedp.ID("runnow")),
		browsertest.WaitText("#log", "first <line>\n"))
	if shown := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("log"))); strings.Contains(shown, "second") {
		t.Fatalf("the live log showed %q before the command wrote its second line", shown)
	}
	browsertest.Step(t, ctx, "see the Run end", browsertest.WaitText("#run-state", "succeeded"), browsertest.WaitText("#log", "last"))
	runURL := browsertest.Value(t, ctx, chromedp.Location())
	for _, scripts := range []bool{true, false} {
		browsertest.Step(t, ctx, fmt.Sprintf("open the ended Run's page, scripts on: %t", scripts), browsertest.Scripts(scripts),
			chromedp.Navigate(runURL), chromedp.WaitVisible(chromedp.ID("log")), chromedp.Sleep(1500*time.Millisecond))
		if shown := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("log"))); shown != want {
			t.Errorf("scripts on: %t: the ended Run's page shows %q; want %q, once", scripts, shown, want)
		}
	}
}

// In a real browser, a live log the server stops (a read that ran out of
// its time limit: the server's side is console:
// TestEveryReadOfALiveLogHasATimeLimitAndSaysWhenItRunsOut) shows what the
// stream said under the log and stops following: the browser does not
// connect again on its own, which would only meet the same wait.
func TestConsoleLiveLogInABrowserSaysWhyItStopped(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	const said = "The live output stopped: the server could not read this run or its output within 10s"
	var streams atomic.Int32
	front := logStreamFront(t, site.base, func(w http.ResponseWriter, r *http.Request) {
		streams.Add(1)
		_, _ = io.WriteString(w, "id: 1:3\nevent: log\ndata: \"up\\n\"\n\nevent: stopped\ndata: \""+said+"\"\n\n")
	})

	browsertest.Step(t, ctx, "sign in through the proxy", chromedp.Navigate(front.URL+"/signin?lang=en"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "Overview"))
	browsertest.Step(t, ctx, "run now and see the live log stop", chromedp.Navigate(front.URL+"/triggers/"+site.triggerID),
		chromedp.WaitVisible(chromedp.ID("runnow")),
		chromedp.Click(chromedp.ID("runnow")),
		chromedp.WaitVisible(chromedp.ID("log-stopped")),
		browsertest.WaitText("#log-stopped", said))
	// An EventSource whose stream ends connects again after about 3s.
	time.Sleep(4 * time.Second)
	if shown, n := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("log"))), streams.Load(); shown != "up\n" || n != 1 {
		t.Fatalf("after the stop the log shows %q and was asked for %d times; want what came before the stop, asked for once", shown, n)
	}
}

// In a real browser, on a Chinese page, a Run's live output box with
// nothing in it yet is not a blank box: a sentence says that no output
// came yet (the command has not started, or printed nothing so far), and
// the command's first line replaces it.
func TestALiveOutputWithNothingInItYetSaysSoInWords(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		`sleep 2; echo 'late line'`)
	shown := func(id string) bool {
		return browsertest.Value(t, ctx, chromedp.Evaluate[bool](`(() => { const e = document.getElementById("`+id+`");
			return !!e && !e.hidden && getComputedStyle(e).display !== "none"; })()`))
	}
	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	browsertest.Step(t, ctx, "run now", chromedp.Navigate(site.base+"/triggers/"+site.triggerID),
		chromedp.WaitVisible(chromedp.ID("runnow")),
		chromedp.Click(chromedp.ID("runnow")),
		browsertest.WaitText("#log-empty", "暂无输出：命令尚未启动，或到目前为止还没有打印任何内容。"))
	if !shown("log-empty") || shown("log") {
		t.Fatalf("before any output: the sentence shown %t, the empty box shown %t; want the sentence alone", shown("log-empty"), shown("log"))
	}
	browsertest.Step(t, ctx, "see the first line replace the sentence", browsertest.WaitText("#log", "late line"))
	if shown("log-empty") || !shown("log") {
		t.Errorf("after the first line: the sentence shown %t, the box shown %t; want the box alone", shown("log-empty"), shown("log"))
	}
	browsertest.Step(t, ctx, "see the Run end", browsertest.WaitText("#run-state", "成功"))
}

// In a real browser, on a Chinese page, the note a stopped command's live
// log ends with (sent as a stream event of its own once the attempt has
// ended) shows in the page's words after the output, set apart from it as
// the reloaded page sets it apart.
func TestALiveLogShowsItsStopNoteApartFromTheOutputInABrowser(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	const note = "[青龙：命令已被停止：运行被要求取消（它已经结束了）]\n"
	front := logStreamFront(t, site.base, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "id: 1:3\nevent: log\ndata: \"up\\n\"\n\nid: 1:40\nevent: stop\ndata: \""+strings.TrimSuffix(note, "\n")+"\\n\"\n\n")
		// Held open, as a stream is until the attempt's end is read:
		// the browser does not connect again meanwhile.
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})

	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(front.URL+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	browsertest.Step(t, ctx, "run now and see the stop note", chromedp.Navigate(front.URL+"/triggers/"+site.triggerID+"?lang=zh"),
		chromedp.WaitVisible(chromedp.ID("runnow")),
		chromedp.Click(chromedp.ID("runnow")),
		chromedp.WaitVisible(chromedp.ID("log-stop")),
		browsertest.WaitText("#log-stop", note))
	if shown := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("log"))); shown != "up\n"+note {
		t.Fatalf("the live log shows %q; want the output, then the note", shown)
	}
	noteColor := browsertest.Value(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("log-stop")).color`))
	logColor := browsertest.Value(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("log")).color`))
	if noteColor == logColor {
		t.Fatalf("the stop note has the output's colour %s; want it set apart", logColor)
	}
}

// logStreamFront is a server in front of the console at base that answers
// every live log stream with stream (as an event stream) and passes every
// other request on to the console.
func logStreamFront(t *testing.T, base string, stream http.HandlerFunc) *httptest.Server {
	t.Helper()
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/log") {
			w.Header().Set("Content-Type", "text/event-stream")
			stream(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front
}
