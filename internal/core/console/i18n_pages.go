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
		"proj.cap":      "Running %[1]d of %[2]d: the project runs at most %[2]d of its Runs at once (maxRunning in its definitions file).",
		"proj.cap.more": "Running %[1]d or more of %[2]d: the project runs at most %[2]d of its Runs at once (maxRunning in its definitions file).",
		"proj.capjoin":  "%s %s",
		"resume.note":   "Note (optional)",
		"resumed.note":  "resumed: %s",
		// The queued Runs a full cap holds back (project_busy).
		"proj.capheld":      "%d queued Runs wait for a free slot of the project (project_busy): as one of its Runs finishes, the one queued first starts. Raise maxRunning to run more at once.",
		"proj.capheld.one":  "%d queued Run waits for a free slot of the project (project_busy): it starts as one of the project's Runs finishes. Raise maxRunning to run more at once.",
		"proj.capheld.more": "%d or more queued Runs wait for a free slot of the project (project_busy): as one of its Runs finishes, the one queued first starts. Raise maxRunning to run more at once.",
	},
	"zh": {
		"yours.title":       "标题",
		"yours.notitle":     "（无：标题将被清除）",
		"proj.cap":          "运行中 %[1]d / %[2]d：该项目最多同时运行 %[2]d 个运行（定义文件中的 maxRunning）。",
		"proj.cap.more":     "运行中 %[1]d 个以上 / %[2]d：该项目最多同时运行 %[2]d 个运行（定义文件中的 maxRunning）。",
		"proj.capjoin":      "%s%s",
		"resume.note":       "备注（可选）",
		"resumed.note":      "恢复备注：%s",
		"proj.capheld":      "%d 个排队中的运行在等待该项目空出槽位（project_busy）：该项目的运行每结束一个，就启动最早排队的那个。要同时运行更多，请调高 maxRunning。",
		"proj.capheld.more": "%d 个以上排队中的运行在等待该项目空出槽位（project_busy）：该项目的运行每结束一个，就启动最早排队的那个。要同时运行更多，请调高 maxRunning。",
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
