package console

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

var hiddenField = regexp.MustCompile(`<input type="hidden"[^>]*>`)

// A script's name is chosen by whoever wrote the file, a pulled
// repository too: a text-direction override in it (U+202E) would show
// "jd_\u202ejs.hs" as "jd_sh.sj", another file. The Scripts page shows
// such characters as escapes in its listing, its folder trail and a
// file's page, and its links still reach the file.
func TestTheScriptsPageShowsTextDirectionCharactersOfANameAsEscapes(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	const dir, name = "sub\u202edir", "jd_\u202ejs.hs"
	site.write(t, dir+"/"+name, "echo hi\n")
	for _, page := range []string{"/scripts?path=" + url.QueryEscape(dir), "/scripts/file?path=" + url.QueryEscape(dir+"/"+name), "/scripts/edit?path=" + url.QueryEscape(dir+"/"+name)} {
		w := site.send(apitoken.Admin, page, nil)
		body := w.Body.String()
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d:\n%s", page, w.Code, body)
		}
		// A form's hidden field carries the path itself, which no one
		// reads.
		if strings.ContainsRune(hiddenField.ReplaceAllString(body, ""), '\u202e') {
			t.Errorf("%s shows a raw U+202E:\n%s", page, body)
		}
		if !strings.Contains(body, `jd_\u202ejs.hs`) && !strings.Contains(body, `sub\u202edir`) {
			t.Errorf("%s shows the name without its escape:\n%s", page, body)
		}
	}
	if w := site.send(apitoken.Admin, "/scripts/file?path="+url.QueryEscape(dir+"/"+name), nil); !strings.Contains(w.Body.String(), "echo hi") {
		t.Fatalf("the file's page does not show its content:\n%s", w.Body.String())
	}
}
