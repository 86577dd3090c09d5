package crontab

import (
	"fmt"
	"strings"
	"testing"
)

// A ql repo line whose URL, branch, whitelist or blacklist holds a
// control or format character (a text-direction override, a zero-width
// space, the byte-order mark, a C1 control, a line separator) is not
// converted, as the Subscriptions form refuses it: its note names the
// field and the character, never the URL, which may carry a token.
func TestAQlRepoLineHoldingAControlOrFormatCharacterIsNotConverted(t *testing.T) {
	t.Parallel()
	const token = "ghp_UNSEEN9"
	for _, c := range []rune{'\u202e', '\u2066', '\u200b', '\ufeff', '\u0085', '\u2028'} {
		for field, words := range map[string]string{
			"url":     "https://bot:" + token + "@example.com/o/r" + string(c) + "gpj.exe.git",
			"branch":  "https://bot:" + token + "@example.com/o/r.git '' '' '' 'ma" + string(c) + "in'",
			"match":   "https://bot:" + token + "@example.com/o/r.git 'jd" + string(c) + "_'",
			"exclude": "https://bot:" + token + "@example.com/o/r.git '' 'b" + string(c) + "ak'",
		} {
			res, err := Convert(strings.NewReader("0 0 * * * ql repo "+words+"\n"), Options{Zone: "UTC"})
			if err != nil {
				t.Fatal(err)
			}
			char := fmt.Sprintf("%U", c)
			if len(res.Entries) != 0 || len(res.Problems) != 1 {
				t.Errorf("%s %s: entries %+v problems %+v; want the line not converted", field, char, res.Entries, res.Problems)
				continue
			}
			p := res.Problems[0]
			if p.Kind != NotConverted || p.Code != CodeRepoCharacter || p.Params["field"] != field || p.Params["char"] != char ||
				!strings.Contains(p.Why, char) || strings.Contains(p.Why, token) || strings.Contains(p.Why, "example.com") {
				t.Errorf("%s %s: %+v; want not converted as %s naming the field and the character, not the URL", field, char, p, CodeRepoCharacter)
			}
		}
	}
}

// A ql raw line whose URL holds a control or format character is not
// converted, as a ql repo line's is: the file's name, its task's and the
// pages showing them would read as other text than curl and the scripts
// folder do. Its note names the field and the character, never the URL,
// which may carry a token.
func TestAQlRawLineHoldingAControlOrFormatCharacterIsNotConverted(t *testing.T) {
	t.Parallel()
	const token = "ghp_UNSEEN9"
	for _, c := range []rune{'\u202e', '\u2066', '\u200b', '\ufeff', '\u0085', '\u2028'} {
		for _, url := range []string{
			"https://bot:" + token + "@example.com/d/jd_x" + string(c) + "sj.js",
			"https://bot:" + token + "@example.com/d/jd_x.js?v=" + string(c),
		} {
			res, err := Convert(strings.NewReader("0 0 * * * ql raw '"+url+"'\n"), Options{Zone: "UTC"})
			if err != nil {
				t.Fatal(err)
			}
			char := fmt.Sprintf("%U", c)
			if len(res.Entries) != 0 || len(res.Problems) != 1 {
				t.Errorf("%s: entries %+v problems %+v; want the line not converted", char, res.Entries, res.Problems)
				continue
			}
			p := res.Problems[0]
			if p.Kind != NotConverted || p.Code != CodeRawCharacter || p.Params["field"] != "url" || p.Params["char"] != char ||
				!strings.Contains(p.Why, char) || strings.Contains(p.Why, token) || strings.Contains(p.Why, "example.com") {
				t.Errorf("%s: %+v; want not converted as %s naming the URL and the character, not the URL's text", char, p, CodeRawCharacter)
			}
		}
	}
}
