package server

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// pageLoads counts what a browser asks of the console through a proxy:
// the requests a session's rate counts (pages, forms, live logs) apart
// from the assets, which it does not, and any answered 429.
type pageLoads struct {
	mu              sync.Mutex
	counted, assets int
	refused         []string
}

func (p *pageLoads) front(t *testing.T, base string) *httptest.Server {
	t.Helper()
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	proxy.ModifyResponse = func(resp *http.Response) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		if resp.StatusCode == http.StatusTooManyRequests {
			p.refused = append(p.refused, resp.Request.URL.Path)
		}
		return nil
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		if strings.HasPrefix(r.URL.Path, "/assets/") {
			p.assets++
		} else {
			p.counted++
		}
		p.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front
}

// take returns the counts since the last take and starts again.
func (p *pageLoads) take() (counted, assets int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	counted, assets = p.counted, p.assets
	p.counted, p.assets = 0, 0
	return counted, assets
}

// In a real browser, signing in and opening the pages of a running Run,
// its live log followed, counts a few requests per page against the
// session's rate (the figure the rate was chosen well above), the
// assets none, and no request is refused.
func TestANormalPageLoadInABrowserStaysWellWithinTheSessionsRate(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	loads := &pageLoads{}
	front := loads.front(t, site.base)
	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(front.URL+"/signin?lang=en"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "Overview"))
	signin, signinAssets := loads.take()
	browsertest.Step(t, ctx, "open the trigger", chromedp.Navigate(front.URL+"/triggers/"+site.triggerID), chromedp.WaitVisible(chromedp.ID("runnow")))
	trigger, triggerAssets := loads.take()
	browsertest.Step(t, ctx, "run now and follow the live log", chromedp.Click(chromedp.ID("runnow")), browsertest.WaitText("#log", "line 3\n"))
	runPage, runAssets := loads.take()
	t.Logf("requests the session's rate counts (assets apart): sign-in and overview %d (%d), trigger page %d (%d), run now and its page with the live log %d (%d)",
		signin, signinAssets, trigger, triggerAssets, runPage, runAssets)
	if len(loads.refused) > 0 {
		t.Fatalf("a normal page load was refused: %v", loads.refused)
	}
	for _, n := range []int{signin, trigger, runPage} {
		if 4*n > console.SessionBurst {
			t.Fatalf("a page load counted %d requests against a session's burst of %d; want it well within (a quarter at most)", n, console.SessionBurst)
		}
	}
	browsertest.Step(t, ctx, "cancel the run", chromedp.Click(chromedp.ID("cancel-ask")), chromedp.Click(chromedp.ID("cancel")), browsertest.WaitText("#run-state", "cancelled"))
}
