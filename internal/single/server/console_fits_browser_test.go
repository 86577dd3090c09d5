package server

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// Names as long as people give them, which a phone has to fit.
const (
	longProject    = "shop-orders-eu-central-production"
	longTask       = "broken-checkin-for-jd-bean-signin-very-long-name"
	longTrigger    = "nightly-broken-checkin-trigger-with-long-name"
	longScriptName = "jd_bean_sign_really_long_script_name_for_testing.py"
)

// longLine is a line of output or of a script with no space to break at
// for 120 characters.
var longLine = "https://api.example.com/v1/" + strings.Repeat("a", 120)

// fitSite is a console site whose trigger shop/nightly is running (its
// command prints a long line a second), beside the project longProject
// whose trigger longTrigger fails every two seconds with a long line on
// stderr, and the script longScriptName, holding a long line, in the scripts
// folder. It returns once both Runs are there, with their ids.
func fitSite(t *testing.T) (site *consoleSite, running, failed string) {
	t.Helper()
	site = startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce},
		`while true; do echo "`+longLine+`"; sleep 1; done`)
	if err := os.WriteFile(filepath.Join(site.srv.cfg.ScriptsDir, longScriptName), []byte("import requests\n# "+longLine+"\nprint('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	file := "project: " + longProject + "\ntasks:\n  - name: " + longTask + "\n    script: echo " + longLine + " >&2; exit 3\ntriggers:\n  - name: " + longTrigger +
		"\n    task: " + longTask + "\n    cron: '*/2 * * * * *'\n    timezone: Asia/Shanghai\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run", url.Values{"csrf": {csrf}}); resp.StatusCode >= 400 {
		t.Fatalf("run shop/nightly: %d\n%s", resp.StatusCode, page)
	}
	runOf := func(query string) string {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?"+query, nil)
		if m := regexp.MustCompile(`href="/runs/([0-9a-f-]{36})"`).FindStringSubmatch(page); m != nil {
			return m[1]
		}
		return ""
	}
	waitFor(t, "a failed Run of "+longTrigger+" and shop/nightly running", 20*time.Second, func() bool {
		failed, running = runOf("project="+longProject+"&state=failed"), runOf("project=shop&state=running")
		return failed != "" && running != ""
	})
	return site, running, failed
}

// fitProbe opens every <details> of the page (a question behind a
// button, a message's full text, the header's menu) and reports, at the
// browser's width, how wide the page is, its lang, whether its ground is
// dark (and a live log's box, as the page's when it has none), and the shown form fields without a label, the controls shorter
// than a thumb (40 px: buttons, fields, the header's links, a list's
// action links; a box to tick under 24 px), the fields whose text is under 16 px
// (iOS zooms into those when they take focus), the text whose contrast
// with its background is under 4.5:1, and the tables without headers,
// column headers without text and images without text it has.
const fitProbe = `(() => {
 for (const d of document.querySelectorAll('details')) d.open = true;
 const seen = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
 const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.name ? '[name=' + e.name + ']' : '') + ' "' + (e.textContent || '').trim().slice(0, 24) + '"';
 const out = {Lang: document.documentElement.lang, Width: document.documentElement.scrollWidth, Unlabelled: [], Small: [], Zooms: [], Faint: [], Bare: []};
 const dark = e => { const c = getComputedStyle(e).backgroundColor.match(/[\d.]+/g).map(Number); return c[0] + c[1] + c[2] < 3 * 64; };
 out.Dark = dark(document.body);
 const log = document.getElementById('log');
 out.LogDark = log ? dark(log) : out.Dark;
 for (const e of document.querySelectorAll('input, select, textarea')) {
  if (['hidden', 'submit', 'button'].includes(e.type)) continue;
  if (seen(e) && !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby')) out.Unlabelled.push(name(e));
  if (seen(e) && parseFloat(getComputedStyle(e).fontSize) < 16) out.Zooms.push(name(e) + ' ' + getComputedStyle(e).fontSize);
 }
 for (const e of document.querySelectorAll('button, a.button, summary, select, textarea, input:not([type=hidden]):not([type=checkbox]):not([type=radio]), header a, .actions a, nav a')) {
  const h = e.getBoundingClientRect().height;
  if (seen(e) && h < 40) out.Small.push(name(e) + ' ' + Math.round(h) + ' px');
 }
 for (const e of document.querySelectorAll('input[type=checkbox], input[type=radio]')) {
  const r = e.getBoundingClientRect();
  if (seen(e) && Math.min(r.width, r.height) < 24) out.Small.push(name(e) + ' ' + Math.round(r.width) + '×' + Math.round(r.height) + ' px');
 }
 const lum = c => {
  const m = c.match(/[\d.]+/g).map(Number);
  if (m.length > 3 && m[3] === 0) return null;
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(m[0]) + 0.7152 * f(m[1]) + 0.0722 * f(m[2]);
 };
 const ground = e => { for (; e; e = e.parentElement) { const l = lum(getComputedStyle(e).backgroundColor); if (l !== null) return l; } return 1; };
 for (const e of document.querySelectorAll('body *')) {
  if (!seen(e) || ![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
  const a = lum(getComputedStyle(e).color), b = ground(e), r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  if (r < 4.5) out.Faint.push(name(e) + ' ' + r.toFixed(2) + ':1');
 }
 for (const e of document.querySelectorAll('table')) if (!e.querySelector('th')) out.Bare.push('a table without headers');
 for (const e of document.querySelectorAll('th')) if (!e.textContent.trim()) out.Bare.push('a column header without text');
 for (const e of document.querySelectorAll('img, svg')) if (!e.getAttribute('alt') && !e.getAttribute('aria-label') && !e.querySelector('title')) out.Bare.push(e.outerHTML.slice(0, 60));
 return out;
})()`

// fit is what fitProbe reports.
type fit struct {
	Lang                                  string
	Width                                 int
	Dark, LogDark                         bool
	Unlabelled, Small, Zooms, Faint, Bare []string
}

// In Chromium, on a 375 px phone and a 768 px tablet, in Chinese, every
// console page a standalone server's owner opens — the sign-in page, the
// overview, the triggers list and a trigger, the Runs list filtered, a
// running Run with its live log and a failed one, notifications,
// definitions and their forms, the crontab import, tokens, audit,
// secrets, the scripts list, a script, its editor and its delete
// question, subscriptions and a new one's form, dependencies, backup and
// the account — with names, commands and output
// lines longer than the screen and every question behind a button open:
// fits the screen's width, says it is Chinese (lang zh-CN), labels every
// field, gives every button, field and header link at least 40 px of
// height and every box to tick 24 px, types in 16 px or more (no zoom on
// focus), shows its text at a contrast of 4.5:1 at least, and has no
// table without headers nor a column header without text (a screen
// reader names each cell's column). On a phone whose system asks for
// dark colours, every page is dark and its text as readable; a running
// Run's live log is a light box in light colours and a dark one in dark.
func TestEveryConsolePageFitsAPhoneAndATabletWithLabelledFieldsAThumbCanHitAndReadableText(t *testing.T) {
	ctx := browsertest.Start(t)
	site, running, failed := fitSite(t)
	dir := browsertest.ArtifactDir(t)
	check := func(page string) {
		t.Helper()
		for _, v := range []struct {
			w      int64
			scheme string
		}{{375, "light"}, {768, "light"}, {375, "dark"}} {
			browsertest.Step(t, ctx, fmt.Sprintf("%s at %d px, %s", page, v.w, v.scheme), chromedp.EmulateViewport(v.w, 1024), browsertest.ColorScheme(v.scheme))
			got := browsertest.Value(t, ctx, chromedp.Evaluate[fit](fitProbe))
			bad := got.Width > int(v.w) || got.Lang != "zh-CN" || got.Dark != (v.scheme == "dark") || got.LogDark != got.Dark || len(got.Unlabelled)+len(got.Small)+len(got.Zooms)+len(got.Faint)+len(got.Bare) > 0
			if bad {
				t.Errorf("%s at %d px, %s: %d px wide, lang %q, dark %v, its log's box dark %v; unlabelled %q; under 40 px %q; under 16 px %q; faint %q; bare %q",
					page, v.w, v.scheme, got.Width, got.Lang, got.Dark, got.LogDark, got.Unlabelled, got.Small, got.Zooms, got.Faint, got.Bare)
				name := strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "_").Replace(page)
				browsertest.Screenshot(t, ctx, dir, fmt.Sprintf("fit%s-%d-%s.png", name, v.w, v.scheme), int(v.w))
			}
		}
		browsertest.Step(t, ctx, "back to a phone", chromedp.EmulateViewport(375, 812), browsertest.ColorScheme("light"))
	}
	browsertest.Step(t, ctx, "the sign-in page", chromedp.EmulateViewport(375, 812), chromedp.Navigate(site.base+"/signin?lang=zh"), chromedp.WaitVisible(chromedp.ID("token")))
	check("/signin")
	browsertest.Step(t, ctx, "sign in", browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"))
	p := url.QueryEscape(longProject)
	for _, page := range []string{"/", "/triggers", "/triggers/" + site.triggerID, "/runs?state=failed&project=" + p, "/runs/" + running, "/runs/" + failed,
		"/notifications", "/definitions?project=" + p, "/definitions/import?project=" + p, "/definitions/new?project=" + p,
		"/definitions/task?project=" + p + "&task=" + longTask, "/definitions/schedule?project=" + p + "&trigger=" + longTrigger, "/definitions/env?project=" + p,
		"/tokens", "/audit", "/secrets", "/scripts", "/scripts/file?path=" + longScriptName, "/scripts/edit?path=" + longScriptName, "/scripts/delete?path=" + longScriptName,
		"/scripts/tasks", "/subscriptions", "/subscriptions/new", "/dependencies", "/backup", "/account"} {
		sep := "?"
		if strings.Contains(page, "?") {
			sep = "&"
		}
		browsertest.Step(t, ctx, page, chromedp.Navigate(site.base+page+sep+"lang=zh"), chromedp.WaitVisible(chromedp.CSS("main h1")))
		check(page)
	}
}

// focused reports the element that has the focus: its id, whether it is
// inside the page's main content, whether all of it is on the screen, and
// the outline it is drawn with.
const focused = `(() => {
 const e = document.activeElement, r = e.getBoundingClientRect(), s = getComputedStyle(e);
 return {ID: e.id, Tag: e.tagName.toLowerCase(), InMain: e !== document.querySelector('main') && document.querySelector('main').contains(e),
  OnScreen: r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight,
  Outline: s.outlineStyle === 'none' ? 0 : parseFloat(s.outlineWidth)};
})()`

// focus is what focused reports.
type focus struct {
	ID, Tag          string
	InMain, OnScreen bool
	Outline          float64
}

// In Chromium at a laptop's 1280 px, with the keyboard alone, on the
// Chinese triggers list: the first Tab reaches a link, shown on the
// screen while it has the focus, that skips the header's links; Enter on
// it puts the focus on the page's content, where the next Tab reaches
// its first control; each control Tab then reaches is drawn with an
// outline of 2 px or more; and Space on a question's button opens it.
func TestAKeyboardSkipsTheHeaderToThePageAndSeesWhereItsFocusIs(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	browsertest.Step(t, ctx, "sign in on a laptop", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"))
	browsertest.Step(t, ctx, "the triggers list, then Tab", chromedp.Navigate(site.base+"/triggers?lang=zh"), chromedp.WaitVisible(chromedp.CSS("main h1")),
		chromedp.KeyEvent("\t"))
	if got := browsertest.Value(t, ctx, chromedp.Evaluate[focus](focused)); got.ID != "skip" || !got.OnScreen || got.Outline < 2 {
		t.Fatalf("the first Tab focused %s#%s (on the screen %v, outline %v px); want the link that skips the header, on the screen, outlined", got.Tag, got.ID, got.OnScreen, got.Outline)
	}
	browsertest.Step(t, ctx, "Enter on the skip link, then Tab", chromedp.KeyEvent("\r"), chromedp.KeyEvent("\t"))
	if got := browsertest.Value(t, ctx, chromedp.Evaluate[focus](focused)); !got.InMain || got.ID != "triggers-newtask" {
		t.Fatalf("Tab after the skip link focused %s#%s (in the page's content: %v); want the page's first control, New task", got.Tag, got.ID, got.InMain)
	}
	for i := range 12 {
		browsertest.Step(t, ctx, "Tab", chromedp.KeyEvent("\t"))
		if got := browsertest.Value(t, ctx, chromedp.Evaluate[focus](focused)); got.Outline < 2 {
			t.Errorf("Tab %d focused %s#%s with an outline of %v px; want 2 px or more", i+1, got.Tag, got.ID, got.Outline)
		}
	}
	browsertest.Step(t, ctx, "Space on Disable…", chromedp.Focus(chromedp.ID("disable-"+site.triggerID+"-ask")), chromedp.KeyEvent(" "))
	if open := browsertest.Value(t, ctx, chromedp.Evaluate[bool](`document.getElementById("disable-`+site.triggerID+`-step").open`)); !open {
		t.Error("Space on Disable… left its question closed")
	}
}
