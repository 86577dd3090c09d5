package console

import "maps"

// headerMessages are the words of the header's menu (collapsed on a
// narrow screen) and its colour switch, and of the triggers list's pages,
// in both languages; init adds them to messages.
var headerMessages = map[string]map[string]string{
	"en": {
		"menu":         "Menu",
		"theme":        "Colours",
		"theme.light":  "Light",
		"theme.dark":   "Dark",
		"theme.system": "System",
		"trig.count":   "Triggers %d–%d of %d",
		"trig.pageof":  "page %d of %d",
		"trig.pages":   "Pages of the triggers list",
		"trig.prev":    "Previous page",
	},
	"zh": {
		"menu":         "菜单",
		"theme":        "配色",
		"theme.light":  "浅色",
		"theme.dark":   "深色",
		"theme.system": "跟随系统",
		"trig.count":   "第 %d–%d 个触发器，共 %d 个",
		"trig.pageof":  "第 %d 页，共 %d 页",
		"trig.pages":   "触发器列表的分页",
		"trig.prev":    "上一页",
	},
}

func init() {
	for l, m := range headerMessages {
		maps.Copy(messages[l], m)
	}
}
