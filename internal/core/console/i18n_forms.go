package console

import "fmt"

// formMessages are the words of the task and schedule forms' title
// field, of a notification's folded detail and of other form hints, in
// English and Simplified Chinese. They join messages at start; a key both
// hold is a mistake, refused at once.
var formMessages = map[string]map[string]string{
	"en": {
		"nt.title":          "Title (optional, any language)",
		"tok.bind":          "Bound to projects (none chosen: every project)",
		"tok.bindhelp":      "To choose several, tap each one on a touch screen, or hold Ctrl (⌘ on a Mac) as you click each one with a mouse; tapped or clicked again, a project is left out. A bound token acts on those projects only, through the API and the command line; it cannot sign in to this console.",
		"proj.archivednote": "This project is archived: none of its triggers runs, and it cannot be paused, resumed or edited. To make it active, set status: active in its file on the Definitions page and apply it (or `ql apply -f FILE`).",
		"edit.archivednote": "This trigger's project is archived, so its task and schedule cannot be edited. Make the project active first: set status: active in its file on the Definitions page and apply it (or `ql apply -f FILE`).",
		"err.role":          "Your role, %s, does not allow this; it needs the %s role.",
		"nt.titlehelp":      "Shown beside the name in lists, up to 80 characters on one line; empty for none. The name stays the one commands and files use.",
	},
	"zh": {
		"nt.title":          "标题（可选，可用中文）",
		"tok.bind":          "绑定项目（留空：全部项目）",
		"tok.bindhelp":      "可多选：触屏上逐个轻点；用鼠标时按住 Ctrl（Mac 上按 ⌘）逐个点击；再点一次即取消。绑定项目的令牌只能通过 API 和命令行操作这些项目，不能登录本控制台。",
		"proj.archivednote": "此项目已归档：它的触发器都不运行，也不能暂停、恢复或编辑。要恢复为 active，请在“定义”页面把它的 status 设为 active 并应用（或执行 `ql apply -f FILE`）。",
		"edit.archivednote": "此触发器所属的项目已归档，不能编辑任务或计划。请先恢复项目：在“定义”页面把它的 status 设为 active 并应用（或执行 `ql apply -f FILE`）。",
		"err.role":          "你的角色是“%s”，不允许此操作；需要“%s”角色。",
		"nt.titlehelp":      "在列表中显示在名称旁边，一行，最多 80 个字符；留空则不设标题。命令和定义文件仍使用名称。",
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
