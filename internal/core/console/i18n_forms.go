package console

import "fmt"

// formMessages are the words of the task and schedule forms' title
// field, of a notification's folded detail and of other form hints, in
// English and Simplified Chinese. They join messages at start; a key both
// hold is a mistake, refused at once.
var formMessages = map[string]map[string]string{
	"en": {
		"nt.title":     "Title (optional, any language)",
		"nt.titlehelp": "Shown beside the name in lists, up to 80 characters on one line; empty for none. The name stays the one commands and files use.",
	},
	"zh": {
		"nt.title":     "标题（可选，可用中文）",
		"nt.titlehelp": "在列表中显示在名称旁边，一行，最多 80 个字符；留空则不设标题。命令和定义文件仍使用名称。",
	},
}

func init() {
	for l, words := range formMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
