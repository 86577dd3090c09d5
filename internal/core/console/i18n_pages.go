package console

import "fmt"

// pageMessages are the words of a project's slot cap on its page, of the
// attempts' own run time in the Runs list, of a resume's note and of what
// an edit form sent when someone else's change refused it, in English and
// Simplified Chinese. They join messages at start; a key both hold is a
// mistake, refused at once.
var pageMessages = map[string]map[string]string{
	"en": {
		"yours.title":   "Title",
		"yours.notitle": "(none: the title is cleared)",
	},
	"zh": {
		"yours.title":   "标题",
		"yours.notitle": "（无：标题将被清除）",
	},
}

func init() {
	for l, words := range pageMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
