package crontab

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unseen says whether c is a control character (C0 or C1), a format
// character (Unicode's Cf: the text-direction marks, embeddings,
// overrides and isolates, zero-width spaces and joiners, the byte-order
// mark, the soft hyphen) or a line or paragraph separator. Git takes the
// latter kinds in a branch, but a subscription's URL, branch and
// expressions go into its folder's name and the pages and records showing
// them, where such a character would show as other text than git and the
// scripts folder read (o/r\u202Egpj.exe shows as o/rexe.jpg): the
// Subscriptions form and the converter refuse them alike.
func Unseen(c rune) bool {
	return unicode.IsControl(c) || unicode.In(c, unicode.Cf, unicode.Zl, unicode.Zp)
}

// FirstUnseen is the first Unseen character of s, and whether it has
// one.
func FirstUnseen(s string) (rune, bool) {
	i := strings.IndexFunc(s, Unseen)
	if i < 0 {
		return 0, false
	}
	c, _ := utf8.DecodeRuneInString(s[i:])
	return c, true
}

// repoFieldWords are a ql repo line's words as its refusals name them,
// by the field of the subscription they become.
var repoFieldWords = map[string]string{"url": "URL", "branch": "branch", "match": "whitelist (match)", "exclude": "blacklist (exclude)"}

// unseenFault says which of s's words (its URL, branch, whitelist and
// blacklist, in that order) holds an Unseen character first, and which
// character; why is "" when none does. The word is not repeated, as a
// URL's may carry a token. It is checked of a ql repo line only, not by
// PullOf: a subscription an earlier release stored with such a character
// keeps its name and folder, read from its labels, so that the pages
// still list its folder and the form still refuses a second subscription
// pulling into it.
func (s subscription) unseenFault() (field, char, why string) {
	for _, w := range []struct{ field, value string }{{"url", s.URL}, {"branch", s.Branch}, {"match", s.Match}, {"exclude", s.Exclude}} {
		if c, ok := FirstUnseen(w.value); ok {
			char = fmt.Sprintf("%U", c)
			return w.field, char, fmt.Sprintf("ql repo's %s holds %s, a control or format character (a text-direction override, a zero-width space and the like), "+
				"which shows as no text or reorders the text around it, so that what a page shows would not be what git and the scripts folder read: "+
				"remove it from the line (the Subscriptions form refuses it alike)", repoFieldWords[w.field], char)
		}
	}
	return "", "", ""
}

// rawUnseenFault says which character of a ql raw line's URL is Unseen
// first, and why is "" when none is: the file's name, its task's and the
// pages showing them are made of the URL, as a subscription's folder is
// of its words. The URL is not repeated, as it may carry a token.
func rawUnseenFault(url string) (char, why string) {
	c, ok := FirstUnseen(url)
	if !ok {
		return "", ""
	}
	char = fmt.Sprintf("%U", c)
	return char, fmt.Sprintf("ql raw's URL holds %s, a control or format character (a text-direction override, a zero-width space and the like), "+
		"which shows as no text or reorders the text around it, so that what a page shows would not be what curl and the scripts folder read: "+
		"remove it from the line", char)
}
