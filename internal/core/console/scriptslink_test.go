package console

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/scripts"
)

// A symbolic link in the scripts folder is saved through: the file it
// leads to inside the folder gets the text (by a relative link, one
// through "..", or a link to a link), and the link stays a
// link to it, which the listing shows with its target. A link leading
// outside the folder (an absolute one, as the folder's reads take it) or
// to nothing is refused script_link_not_followed,
// naming the link and its target: nothing written, the link as it was.
func TestASaveOfALinkWritesItsTargetInsideTheFolderAndLeavesTheLink(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	outside := filepath.Join(t.TempDir(), "secret.js")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	site.write(t, "lib/real.js", "v1\n")
	links := map[string]string{
		"link.js":    "lib/real.js",
		"sub/up.js":  "../lib/real.js",
		"abs.js":     filepath.Join(site.dir, "lib", "real.js"),
		"out.js":     outside,
		"gone.js":    "lib/nothing.js",
		"chain.js":   "link.js",
		"escapes.js": "../" + filepath.Base(site.dir) + "/../x.js",
	}
	if err := os.MkdirAll(filepath.Join(site.dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, to := range links {
		if err := os.Symlink(to, filepath.Join(site.dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	listing := html.UnescapeString(site.send(apitoken.Admin, "/scripts", nil).Body.String())
	for _, want := range []string{"(a link to lib/real.js)", "(a link leading outside the folder, to " + outside + ": not followed)", "(a link leading outside the folder, to lib/nothing.js"} {
		if !strings.Contains(listing, want) {
			t.Errorf("the listing lacks %q:\n%s", want, listing)
		}
	}

	text := "v1\n"
	for _, link := range []string{"link.js", "sub/up.js", "chain.js"} {
		next := text + "// saved through " + link + "\n"
		w := site.do(apitoken.Admin, "/scripts/edit", url.Values{"path": {link}, "text": {next}, "loaded": {scripts.Digest([]byte(text))}})
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "through the link: written to lib/real.js") {
			t.Fatalf("a save of %s: %d; want it written through to lib/real.js:\n%s", link, w.Code, w.Body)
		}
		if got := site.read(t, "lib/real.js"); got != next {
			t.Fatalf("after a save of %s, lib/real.js is %q; want %q", link, got, next)
		}
		if to, err := os.Readlink(filepath.Join(site.dir, filepath.FromSlash(link))); err != nil || to != links[link] {
			t.Errorf("after its save, %s is no longer the link to %s: %q %v", link, links[link], to, err)
		}
		text = next
	}
	if recs := site.records(t); len(recs) == 0 || !strings.Contains(recs[0].Note, "through the link, to lib/real.js") {
		t.Errorf("the audit record of a save through a link: %+v; want it to name the file written", recs)
	}

	for _, link := range []string{"out.js", "gone.js", "escapes.js", "abs.js"} {
		w := site.send(apitoken.Admin, "/scripts/edit", url.Values{"path": {link}, "text": {"x\n"}, "loaded": {scripts.Digest([]byte("outside\n"))}})
		body := html.UnescapeString(w.Body.String())
		if w.Code < 400 || !strings.Contains(body, "script "+link+" is a symbolic link to "+links[link]) || !strings.Contains(body, "the link is as it was") {
			t.Errorf("a save of %s: %d; want script_link_not_followed naming the link and its target:\n%s", link, w.Code, body)
		}
		if to, err := os.Readlink(filepath.Join(site.dir, link)); err != nil || to != links[link] {
			t.Errorf("the refused save changed the link %s: %q %v", link, to, err)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside\n" {
		t.Errorf("the file outside is %q", b)
	}
	if site.read(t, "lib/nothing.js") != "" {
		t.Error("the save of a link to nothing made its target")
	}
	zh := site.send(apitoken.Admin, "/scripts/edit?lang=zh", url.Values{"path": {"gone.js"}, "text": {"x\n"}, "loaded": {"0"}})
	if !strings.Contains(zh.Body.String(), "是指向 lib/nothing.js 的符号链接") {
		t.Errorf("the refusal in Chinese:\n%s", zh.Body)
	}

	saved, err := site.c.cfg.Scripts.Put("link.js", strings.NewReader("put\n"), true, scripts.MaxUpload)
	if err != nil || saved.Through != "lib/real.js" || site.read(t, "lib/real.js") != "put\n" {
		t.Errorf("a put replacing link.js: %+v %v, lib/real.js %q; want it written through", saved, err, site.read(t, "lib/real.js"))
	}
	if to, err := os.Readlink(filepath.Join(site.dir, "link.js")); err != nil || to != "lib/real.js" {
		t.Errorf("the put replaced the link: %q %v", to, err)
	}
}
