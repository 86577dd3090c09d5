package crontab

import (
	"strings"
	"testing"
)

// A pull task's script an earlier release wrote with the credential
// helper for every URL becomes, scoped, the very script a pull task of
// its URL is written with now; a hand edit elsewhere in it stays; a
// script already scoped, or of a URL git is given no credentials for, is
// left as it is.
func TestAnUnscopedHelperIsScopedToWhatAPullTaskIsWrittenWithNow(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"https://bot:tok@Git.Example.com:8443/o/r.git", "http://tok@git.example.com/o/r.git", "https://git.example.com/o/r.git"} {
		now, _ := PullOf(url, "main")
		bare, _, _, _ := gitCredentials(url)
		written := "set -eu\ngit -c credential.helper= -c " + scopedHelper(helperScope(bare)) + " clone -- x y\n"
		old := strings.ReplaceAll(written, scopedHelper(helperScope(bare)), unscopedHelper)
		if got, ok := Rescoped(old, url); !ok || got != written {
			t.Errorf("%s: rescoped %v:\n%s\nwant\n%s", url, ok, got, written)
		}
		if strings.Contains(now.Script, "credential.helper=!") {
			t.Errorf("%s: a pull task is written now with the unscoped helper:\n%s", url, now.Script)
		}
		if old := strings.ReplaceAll(now.Script, scopedHelper(helperScope(bare)), unscopedHelper); old != now.Script {
			if got, ok := Rescoped(old+"echo edited by hand\n", url); !ok || got != now.Script+"echo edited by hand\n" {
				t.Errorf("%s: the old script rescoped %v:\n%s\nwant the script written now with the hand edit", url, ok, got)
			}
		}
		if _, ok := Rescoped(now.Script, url); ok {
			t.Errorf("%s: a script written now was rescoped again", url)
		}
	}
	if _, ok := Rescoped("git -c credential.helper= -c "+unscopedHelper+" clone -- x y", "git@git.example.com:o/r.git"); ok {
		t.Errorf("an scp-like URL, which a pull gives no credentials for, was rescoped")
	}
}
