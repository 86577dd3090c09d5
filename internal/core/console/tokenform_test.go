package console

import (
	"html"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// withTokenAdmin lets the console manage the store's tokens, as a
// standalone server's does.
func withTokenAdmin(cfg *Config) { cfg.TokenAdmin = cfg.Tokens.(apitoken.Manager) }

// The expiry box of the token form holds no example that reads as a
// default: its label says, in the page's language, that an empty box
// never expires, and the box is described by the help under it.
func TestTheTokenFormSaysAnEmptyExpiryNeverExpiresInBothLanguages(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withTokenAdmin)
	for l, label := range map[string]string{"en": "Expires after (empty: never)", "zh": "有效期（留空：永不过期）"} {
		page := site.do(apitoken.Admin, "/tokens?lang="+l, nil).Body.String()
		box := regexp.MustCompile(`<input id="tok-expires"[^>]*>`).FindString(page)
		if box == "" || strings.Contains(box, "placeholder") || !strings.Contains(box, `aria-describedby="tok-expires-help"`) {
			t.Errorf("%s: the expiry box %q has a placeholder or no description", l, box)
		}
		if !strings.Contains(html.UnescapeString(page), `<label for="tok-expires">`+label+`</label>`) {
			t.Errorf("%s: the expiry box's label is not %q:\n%s", l, label, page)
		}
		if !strings.Contains(page, `<p class="help" id="tok-expires-help">`) {
			t.Errorf("%s: no help describes the expiry box:\n%s", l, page)
		}
	}
}

// A token just created is shown whole at any width: it wraps at any
// character rather than scroll its end out of sight, and one click selects
// all of it; its copy button is hidden until the script finds a clipboard
// it may write, and says in the page's language, when the browser refuses
// the copy, to select the token and copy it.
func TestANewTokenWrapsAnywhereToBeSeenWholeAndSaysWhenItsCopyIsRefused(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withTokenAdmin)
	for l, words := range map[string][3]string{"en": {"Copied", "Copy failed: select the token and copy it", "Copy token"}, "zh": {"已复制", "复制失败：请选中令牌后手动复制", "复制令牌"}} {
		page := site.do(apitoken.Admin, "/tokens?lang="+l, url.Values{"name": {"deploy-" + l}, "scope": {"read"}}).Body.String()
		shown := regexp.MustCompile(`<p class="secret"><code id="new-token">(qlt_[A-Za-z0-9_-]+)</code></p><p><button id="tok-copy" type="button" hidden data-copied="` + words[0] +
			`" data-failed="` + words[1] + `">` + words[2] + `</button></p>`).FindStringSubmatch(page)
		if shown == nil || !apitoken.LooksLikeToken(shown[1]) {
			t.Fatalf("%s: the new token is not shown whole beside its hidden copy button:\n%s", l, page)
		}
	}
	css, err := fs.ReadFile(assets, "assets/app.css")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(css), "p.secret{margin:0}p.secret code{white-space:normal;overflow-wrap:anywhere;word-break:break-all;user-select:all") {
		t.Error("the stylesheet keeps a new token on one line, or does not select it whole")
	}
	js, err := fs.ReadFile(assets, "assets/app.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`getElementById("tok-copy")`, `navigator.clipboard.writeText(token.textContent)`, "button.hidden = false", `button.getAttribute("data-failed")`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("the script does not offer the copy button: it lacks %s", want)
		}
	}
}

// A token form of several mistakes is answered with every one of them, in
// the order of the form's fields (name, scope, expiry), and creates no
// token.
func TestTheTokenFormSaysEveryMistakeInTheOrderOfItsFields(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withTokenAdmin)
	w := site.do(apitoken.Admin, "/tokens", url.Values{"name": {"Deploy Bot"}, "scope": {"root"}, "expires": {"soon"}})
	_, list, _ := strings.Cut(html.UnescapeString(w.Body.String()), `id="tok-error">`)
	list, _, _ = strings.Cut(list, "</ul>")
	items := regexp.MustCompile(`<li>(.*?)</li>`).FindAllStringSubmatch(list, -1)
	want := []string{`Token name: "Deploy Bot"`, `Scope "root"`, `Expiry: "soon"`}
	if w.Code != http.StatusBadRequest || len(items) != len(want) {
		t.Fatalf("%d with %d mistakes listed, want 400 with %d:\n%s", w.Code, len(items), len(want), w.Body)
	}
	for i, item := range items {
		if !strings.Contains(item[1], want[i]) {
			t.Errorf("mistake %d is %q, want the one of %s", i+1, item[1], want[i])
		}
	}
	tokens, err := site.st.TokenList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range tokens {
		if tk.Name == "Deploy Bot" {
			t.Error("a refused form created its token")
		}
	}
}
