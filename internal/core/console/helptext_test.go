package console

import (
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// Every command and example the console's help text gives is set as code
// in both languages — the sign-in page's `--role viewer`, the Definitions
// page's `ql apply` and `ql export`, the New task form's cron examples and
// timeouts — and a command's long flag is a span a line does not break,
// so a narrow column never parts -- from its name.
func TestCommandsAndExamplesInHelpTextAreCodeWithTheirFlagsWhole(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, func(cfg *Config) { canPublish(cfg); cfg.Users = cfg.Tokens.(account.Authenticator) })
	flag := func(f string) string { return `<span class="nowrap">` + f + `</span>` }
	for _, l := range []string{"en", "zh"} {
		b := &browser{c: site.c, cookies: map[string]string{}}
		signin := b.do(http.MethodGet, "/signin?lang="+l, nil).Body.String()
		for _, want := range []string{"<code>ql users create NAME " + flag("--owner") + "</code>",
			"<code>" + flag("--role") + " viewer</code>", "<code>" + flag("--role") + " operator</code>", "<code>" + flag("--role") + " owner</code>",
			"<code>ql tokens create NAME " + flag("--scope") + " operate</code>"} {
			if !strings.Contains(signin, want) {
				t.Errorf("%s: the sign-in page's help lacks %s:\n%s", l, want, signin)
			}
		}
		defs := site.do(apitoken.Admin, "/definitions?project=shop&lang="+l, nil).Body.String()
		for _, want := range []string{"<code>ql apply</code>", "<code>ql export</code>"} {
			if !strings.Contains(defs, want) {
				t.Errorf("%s: the Definitions page does not set %s as code:\n%s", l, want, defs)
			}
		}
		form := site.do(apitoken.Admin, "/definitions/new?lang="+l, nil).Body.String()
		for _, want := range []string{"<code>0 3 * * *</code>", "<code>*/30 * * * * *</code>", "<code>30m</code>", "<code>2h</code>"} {
			if !strings.Contains(form, want) {
				t.Errorf("%s: the New task form's help does not set %s as code:\n%s", l, want, form)
			}
		}
	}
}

// The Runs page's trigger box is as wide as its placeholder, in both
// languages, so the hint is not cut off.
func TestTheRunsTriggerBoxShowsItsWholePlaceholder(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	for _, l := range []string{"en", "zh"} {
		page := site.do(apitoken.Read, "/runs?lang="+l, nil).Body.String()
		m := regexp.MustCompile(`<input name="trigger" value="" aria-label="[^"]*" placeholder="([^"]*)" size="(\d+)">`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s: the trigger box has no placeholder or no size:\n%s", l, page)
		}
		// A Chinese character takes two columns of the box.
		hint := html.UnescapeString(m[1])
		cols := utf8.RuneCountInString(hint)
		for _, r := range hint {
			if r > 0x2e80 {
				cols++
			}
		}
		if size, _ := strconv.Atoi(m[2]); size < cols {
			t.Errorf("%s: the trigger box is %s columns wide, its placeholder %q %d", l, m[2], hint, cols)
		}
	}
}

// A Notifications page listing none, unfiltered, says how notifications
// are set up — a project file's `notifications:` section and where its
// channels are described — in both languages; a filtered list of none says
// only that nothing is there.
func TestANotificationsPageWithNoneSaysHowToSetUpAChannel(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, func(cfg *Config) { cfg.Notifications = cfg.Tokens.(notify.Manager) })
	for l, none := range map[string]string{"en": "Nothing here.", "zh": "暂无内容。"} {
		page := site.do(apitoken.Read, "/notifications?lang="+l, nil).Body.String()
		empty := regexp.MustCompile(`<span id="notifications-empty">(.*?)</span></td>`).FindStringSubmatch(page)
		if empty == nil || !strings.Contains(empty[1], "<code>notifications:</code>") || !strings.Contains(empty[1], "docs/notifications.md") || !strings.Contains(empty[1], "<code>ql apply</code>") {
			t.Errorf("%s: the page of no notification does not say how to set one up:\n%s", l, page)
		}
		filtered := site.do(apitoken.Read, "/notifications?state=dead&lang="+l, nil).Body.String()
		if strings.Contains(filtered, `id="notifications-empty"`) || !strings.Contains(html.UnescapeString(filtered), `<td colspan="10">`+none+`</td>`) {
			t.Errorf("%s: a filtered list of none does not say only %q:\n%s", l, none, filtered)
		}
	}
}
