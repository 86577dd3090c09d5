package server

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A command the console tells the user to run shows as a code element, in
// English and in Chinese: on the sign-in page's help and on the error
// page (the catalogue and the errors write it between backquotes), with
// no backquote left on the page.
func TestCommandsTheConsoleNamesShowAsCodeNotBetweenBackquotes(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	for _, l := range []string{"en", "zh"} {
		c := consoleClient(t)
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/signin?lang="+l, nil)
		want := keptFlags("<code>ql tokens create NAME --scope operate --data-dir DATA_DIR</code>")
		if !strings.Contains(page, want) || strings.Contains(page, "`") {
			t.Errorf("the %s sign-in page: want its help to name %s and no backquote:\n%s", l, want, page)
		}
		site.signIn(t, c, site.tokens[apitoken.Read])
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/not-a-run?lang="+l, nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "<code>ql runs list</code>") || strings.Contains(page, "`") {
			t.Errorf("the %s error page for a run id that is not one: %d, want 400 naming <code>ql runs list</code> and no backquote:\n%s", l, resp.StatusCode, page)
		}
	}
}

// asShown is msg as a console page's source shows it: each command
// between backquotes a code element.
func asShown(msg string) string {
	return regexp.MustCompile("`([^`]*)`").ReplaceAllString(msg, "<code>$1</code>")
}

// keptFlags is s, a command on a console's page, with each of its long
// flags a span a line does not break, as the console shows them.
func keptFlags(s string) string {
	return longFlag.ReplaceAllString(s, `$1<span class="nowrap">$2</span>`)
}

var longFlag = regexp.MustCompile(`(^|\s)(--[A-Za-z][A-Za-z0-9-]*)`)
