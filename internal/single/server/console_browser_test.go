package server

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser against a standalone server on SQLite: sign in with a
// token, see the overview, pause a trigger with a note and resume it, run
// it now and watch its output arrive live on the run page, cancel the
// running Run, re-run it, see the next fires in the browser's zone, use
// the console at phone size without horizontal scrolling (the cancelled
// Run's output wrapped between words, Run now on one line in the triggers
// table in either language), as an admin view
// a project as YAML, see a validation error with its line, apply an edited
// definition through the diff preview, sign out, be sent to sign-in
// without a session, and sign in as an owner made by `ql users create` on
// the page whose account and token forms are two cards apart.
func TestConsoleInABrowserSignsInOperatesAndSignsOut(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	b := site.base
	trig := b + "/triggers/" + site.triggerID

	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(b+"/"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "Overview"),
		browsertest.WaitText("main", "Next fires"))

	browsertest.Step(t, ctx, "pause with a note", chromedp.Navigate(trig),
		chromedp.WaitVisible(chromedp.ID("note")),
		chromedp.SendKeys(chromedp.ID("note"), "holiday freeze"),
		chromedp.Click(chromedp.ID("pause")),
		browsertest.WaitText("#pause-state", "paused — holiday freeze"))
	browsertest.Step(t, ctx, "resume", chromedp.Click(chromedp.ID("resume")), browsertest.WaitText("#pause-state", "active"))

	browsertest.Step(t, ctx, "run now and watch the log live", chromedp.Click(chromedp.ID("runnow")),
		chromedp.WaitVisible(chromedp.ID("log")),
		browsertest.WaitText("#log", "line 3\n"))
	runURL := browsertest.Value(t, ctx, chromedp.Location())
	if !strings.Contains(runURL, "/runs/") {
		t.Fatalf("run now led to %s, want the run's page", runURL)
	}
	browsertest.Step(t, ctx, "cancel the running run: open the question, then confirm", chromedp.WaitVisible(chromedp.ID("cancel-ask")),
		chromedp.Click(chromedp.ID("cancel-ask")), chromedp.Click(chromedp.ID("cancel")),
		browsertest.WaitText("#run-state", "cancelled"))
	browsertest.Step(t, ctx, "re-run the cancelled run, then cancel the re-run", chromedp.WaitVisible(chromedp.ID("rerun")),
		chromedp.Click(chromedp.ID("rerun")),
		chromedp.WaitVisible(chromedp.ID("rerun-of")),
		chromedp.WaitVisible(chromedp.ID("cancel-ask")),
		chromedp.Click(chromedp.ID("cancel-ask")), chromedp.Click(chromedp.ID("cancel")),
		browsertest.WaitText("#run-state", "cancelled"))

	dir := browsertest.ArtifactDir(t)
	for _, p := range []struct{ path, want, file string }{
		{"/runs", "cancelled", "runs-390x844.png"},
		{"/?lang=zh", "概览", "overview-zh-390x844.png"},
		{"/triggers/" + site.triggerID, "nightly", "trigger-390x844.png"},
		{"/triggers?lang=en", "Next 5 fires", "triggers-390x844.png"},
	} {
		browsertest.Step(t, ctx, "open "+p.path+" at phone size", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+p.path), browsertest.WaitText("main", p.want))
		browsertest.Screenshot(t, ctx, dir, p.file, 390)
	}
	// A squeezed triggers table keeps Run now on one line in both
	// languages: on a phone held upright (the table as cards) and on its
	// side, where the table itself is just past the cards' breakpoint and
	// its last column is the narrowest it gets.
	for _, l := range []string{"zh", "en"} { // English last: the language chosen stays for the pages below
		for _, w := range []int64{390, 641, 667, 736} {
			browsertest.Step(t, ctx, fmt.Sprintf("open the triggers (%s) %d px wide", l, w), chromedp.EmulateViewport(w, 390),
				chromedp.Navigate(b+"/triggers?lang="+l), chromedp.WaitVisible(chromedp.CSS("button.runnow")))
			if lines := browsertest.Value(t, ctx, chromedp.Evaluate[int](`(() => {
				const r = document.createRange(); r.selectNodeContents(document.querySelector("button.runnow"));
				return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; })()`)); lines != 1 {
				t.Errorf("on the triggers page (%s) %d px wide, Run now takes %d lines, want 1", l, w, lines)
			}
			browsertest.Screenshot(t, ctx, dir, fmt.Sprintf("triggers-%s-%dx390.png", l, w), int(w))
		}
	}
	browsertest.Step(t, ctx, "hold the phone upright again", chromedp.EmulateViewport(390, 844))
	// On a phone a long line of output (here the line saying the command
	// was stopped) wraps between its words; only a word longer than the
	// line is broken.
	browsertest.Step(t, ctx, "open the cancelled run at phone size", chromedp.Navigate(runURL), browsertest.WaitText("#log", "stopped"))
	browsertest.Screenshot(t, ctx, dir, "run-cancelled-390x844.png", 390)
	if split := browsertest.Value(t, ctx, chromedp.Evaluate[[]string](`(() => {
		const split = [], walk = document.createTreeWalker(document.getElementById("log"), NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			for (const m of n.data.matchAll(/\S{1,20}/g)) {
				const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
				if (r.getClientRects().length > 1) split.push(m[0]);
			}
		}
		return split; })()`)); len(split) > 0 {
		t.Errorf("the log breaks the words %q inside them on a phone", split)
	}
	t.Logf("screenshots in %s", dir)

	browsertest.Step(t, ctx, "sign out to sign in as an admin", browsertest.OpenMenu(), chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("token")))
	browsertest.Step(t, ctx, "sign in again as an admin",
		chromedp.SendKeys(chromedp.ID("token"), site.tokens[apitoken.Admin]),
		chromedp.Click(chromedp.ID("signin")),
		browsertest.WaitText("main h1", "Overview")) // the language chosen last above stays
	browsertest.Step(t, ctx, "view the project as YAML", chromedp.Navigate(b+"/definitions?project=shop&lang=en"), chromedp.WaitVisible(chromedp.ID("def-yaml")))
	exported := browsertest.Value(t, ctx, chromedp.Value(chromedp.ID("def-yaml")))
	if !strings.Contains(exported, "name: nightly") || !strings.Contains(exported, "0 0 3 1 1 *") {
		t.Fatalf("the definitions page shows %q; want the project's trigger and its schedule", exported)
	}
	browsertest.Screenshot(t, ctx, dir, "definitions-390x844.png", 390)
	bad, line, col := exported, 0, 0
	for i, l := range strings.Split(exported, "\n") {
		if strings.Contains(l, "timezone: Asia/Shanghai") {
			indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
			bad, line, col = strings.Replace(exported, l, l+"\n"+indent+"colour: red", 1), i+2, len(indent)+1
		}
	}
	browsertest.Step(t, ctx, "a validation error shows its line", chromedp.SetValue(chromedp.ID("def-yaml"), bad),
		chromedp.Click(chromedp.ID("def-preview-btn")),
		browsertest.WaitText("#def-errors", fmt.Sprintf("line %d, column %d", line, col)),
		browsertest.WaitText("#def-errors", `unknown field "colour"`))
	browsertest.Step(t, ctx, "preview an edited definition", chromedp.SetValue(chromedp.ID("def-yaml"), strings.Replace(exported, "0 0 3 1 1 *", "0 0 4 1 1 *", 1)),
		chromedp.Click(chromedp.ID("def-preview-btn")),
		browsertest.WaitText("#def-preview", "cron expression"))
	browsertest.Step(t, ctx, "confirm and apply it", chromedp.Click(chromedp.ID("def-confirm")),
		browsertest.WaitText("#def-applied", "updated (revision 2)"),
		chromedp.Navigate(trig), browsertest.WaitText("main", "0 0 4 1 1 *"))
	noted := strings.Replace(exported, "0 0 3 1 1 *", "'*/10 * * * * *'", 1)
	for _, l := range strings.Split(exported, "\n") {
		if strings.Contains(l, "timezone: Asia/Shanghai") {
			noted = strings.Replace(noted, l, l+"\n"+l[:len(l)-len(strings.TrimLeft(l, " "))]+"jitter: 30s", 1)
		}
	}
	browsertest.Step(t, ctx, "preview a jitter past the period, noted in Chinese", chromedp.Navigate(b+"/definitions?project=shop&lang=zh"),
		chromedp.WaitVisible(chromedp.ID("def-yaml")), chromedp.SetValue(chromedp.ID("def-yaml"), noted),
		chromedp.Click(chromedp.ID("def-preview-btn")),
		browsertest.WaitText("#def-notes", "请让抖动短于 cron 的周期（触发器：nightly（抖动 30s，两次发生相隔 10s））"))
	browsertest.Screenshot(t, ctx, dir, "definitions-notes-zh-390x844.png", 390)

	browsertest.Step(t, ctx, "sign out", browsertest.OpenMenu(), chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("token")))
	browsertest.Step(t, ctx, "refused without a session", chromedp.Navigate(b+"/runs"), chromedp.WaitVisible(chromedp.ID("token")))
	if loc := browsertest.Value(t, ctx, chromedp.Location()); !strings.HasSuffix(loc, "/signin?next=%2Fruns") {
		t.Fatalf("without a session /runs led to %s, want /signin?next=%%2Fruns", loc)
	}

	createOwner(t, site.dir, "ursula", ownerPassword)
	browsertest.Step(t, ctx, "open the sign-in page of accounts and tokens", chromedp.EmulateViewport(1024, 768),
		chromedp.Navigate(b+"/signin?lang=en"), chromedp.WaitVisible(chromedp.ID("user")))
	// Its two forms are two cards apart, not one box of two sign-ins.
	if gap := browsertest.Value(t, ctx, chromedp.Evaluate[float64](`(() => { const [a, b] = document.querySelectorAll("main form.card");
		return b.getBoundingClientRect().top - a.getBoundingClientRect().bottom })()`)); gap < 8 {
		t.Errorf("the sign-in page's two forms are %.0f px apart, want a gap between the cards", gap)
	}
	browsertest.Step(t, ctx, "sign in as a user made by `ql users create --owner`",
		chromedp.SendKeys(chromedp.ID("user"), "ursula"),
		chromedp.SendKeys(chromedp.ID("password"), ownerPassword),
		chromedp.Click(chromedp.ID("signin-user")),
		browsertest.WaitText("main h1", "Overview"))
	browsertest.Step(t, ctx, "open the tokens page", chromedp.Click(chromedp.ID("nav-tokens")),
		browsertest.WaitText("main h1", "Tokens"),
		browsertest.WaitText("#tokens", "console-admin"))
}

// createOwner runs `ql users create NAME --owner --password-stdin` against
// the site's database.
func createOwner(t *testing.T, dir, name, password string) {
	t.Helper()
	root := cli.NewRoot(cli.Options{Binary: "ql", OpenSQLite: func(ctx context.Context, dsn string) (*cli.Backend, error) {
		b, err := OpenBackend(ctx, dsn, nil)
		if err != nil {
			return nil, err
		}
		return &cli.Backend{Users: b.Store, Close: b.Close}, nil
	}})
	var out bytes.Buffer
	root.SetArgs([]string{"users", "create", name, "--owner", "--password-stdin", "--data-dir", dir})
	root.SetIn(strings.NewReader(password + "\n"))
	root.SetOut(&out)
	root.SetErr(&out)
	if err := root.ExecuteContext(t.Context()); err != nil || !strings.Contains(out.String(), "role owner") {
		t.Fatalf("ql users create --owner: %v %s", err, out.String())
	}
}
