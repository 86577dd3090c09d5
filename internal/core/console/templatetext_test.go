package console

import (
	"regexp"
	"strings"
	"testing"
)

// templateText is what a page template shows of its own, outside its
// actions (each a NUL, the place of a value or of the catalogue's words),
// its comments and its tags: the text a reader sees that no language chose.
var (
	templateComment = regexp.MustCompile(`(?s)\{\{/\*.*?\*/\}\}`)
	templateAction  = regexp.MustCompile(`(?s)\{\{.*?\}\}`)
	templateTag     = regexp.MustCompile(`(?s)<[^>]*>`)
	// shownAttr is an attribute a reader sees or hears: a tooltip, a
	// placeholder, a label.
	shownAttr = regexp.MustCompile(`(?:title|placeholder|aria-label|alt|data-label)="([^"]*)"`)
	// ownWords are words or marks of a language: Latin letters, or the
	// punctuation whose form differs between English and Chinese.
	ownWords = regexp.MustCompile(`[0-9]*[A-Za-z][A-Za-z0-9]*|[:;,.()!?"'%]|\p{Han}+|[（）：；，。、！？“”]`)
)

// sameInEveryLanguage are what a page shows that is no language's words:
// the switch names each language in itself, the lag's percentiles and the
// zone UTC are names, and a duration field's example is what is typed in
// it, the same on every page.
var sameInEveryLanguage = map[string]bool{"EN": true, "中文": true, "p50": true, "p99": true, "UTC": true, "1h": true}

// Every word and every mark of punctuation a page shows comes from the
// catalogue, in the page's language: a template holds none of its own
// outside its actions, so no Chinese page shows a word of English or a
// half-width colon or parenthesis beside Chinese words (what separates two
// values — a dash, a middle dot, a slash — reads the same in both).
func TestEveryWordAndMarkOfAPageComesFromTheCatalogue(t *testing.T) {
	eachTemplate(t, func(name, page string) {
		text := templateComment.ReplaceAllString(page, "")
		text = templateAction.ReplaceAllString(text, "\x00")
		var attrs []string
		for _, m := range shownAttr.FindAllStringSubmatch(text, -1) {
			attrs = append(attrs, m[1])
		}
		text = templateTag.ReplaceAllString(text, " ") + " " + strings.Join(attrs, " ")
		for _, w := range ownWords.FindAllString(text, -1) {
			if !sameInEveryLanguage[w] {
				t.Errorf("%s shows %q of its own, in no language's words; put it in the catalogue (i18n.go) in both languages", name, w)
			}
		}
	})
}
