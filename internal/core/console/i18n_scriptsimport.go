package console

import "fmt"

// scriptsImportMessages are the words of the Scripts page's Tasks from
// these scripts form, in English and Simplified Chinese. They join
// messages at start; a key both hold is a mistake, refused at once.
var scriptsImportMessages = map[string]map[string]string{
	"en": {
		"sti.title":      "Tasks from these scripts",
		"sti.actionhelp": "a task and a trigger for each script of this folder (its subfolders too) whose header gives a cron, as the qinglong panel adds them after a subscription's pull; previewed before anything is published.",
		"sti.intro": "Each .js, .py, .sh or .ts script of this folder and its subfolders (not hidden ones or node_modules) whose header comment gives a cron becomes a task and a trigger of the project, " +
			"as `ql crontab scripts` makes them: run with node, python3 -u, bash or tsx (which must be installed where the tasks run) in its own folder, titled by the name in its new Env(…) or its tag=. The next step shows what would be published and every script " +
			"made no task of and why; nothing is published before you confirm there. Nothing follows the folder by itself: after a pull, preview it again (a script unchanged publishes nothing new).",
		"sti.zonehelp":      "The time zone of every trigger (the scripts' crons are the panel's, which ran at its own zone: Asia/Shanghai for most).",
		"sti.match":         "Only paths matching (optional)",
		"sti.exclude":       "Leave out paths matching (optional)",
		"sti.matchhelp":     "Regular expressions over each script's path under this folder, as a subscription's whitelist and blacklist: a script whose path does not match the first, or matches the second, is left out without a word (like jd_|jx_ and backup|test).",
		"sti.badregex":      "this is no regular expression: ",
		"sti.none":          "No script of this folder gave a task, so there is nothing to publish: why of each script is below.",
		"sti.scripts":       "The scripts of %s",
		"sti.converted":     "%d scripts give a task and a trigger each.",
		"sti.converted.one": "%d script gives a task and a trigger.",
		"sti.skipped":       "%d scripts give no task: write theirs on the New task form, or fix their headers and preview again.",
		"sti.skipped.one":   "%d script gives no task: write its task on the New task form, or fix its header and preview again.",
		"sti.script":        "Script",
		"sti.again":         "Every task and trigger of these scripts is published already as it stands: publishing them again changes nothing.",
		"sti.back":          "Back to the form",
		"sti.fix":           "Nothing was published. Fix what is said above (the project's task or trigger these clash with, or the scripts) and preview again.",
	},
	"zh": {
		"sti.title":      "从脚本生成任务",
		"sti.actionhelp": "为此目录（包括子目录）中头部写有 cron 的每个脚本生成一个任务和一个触发器，与青龙面板订阅拉取后添加任务的方式相同；发布之前会先预览。",
		"sti.intro": "此目录及其子目录（隐藏目录和 node_modules 除外）中头部注释写有 cron 的每个 .js、.py、.sh 或 .ts 脚本，成为项目中的一个任务和一个触发器，" +
			"与 `ql crontab scripts` 的结果相同：在脚本自己的目录中用 node、python3 -u、bash 或 tsx（须在运行任务的主机上安装）运行，标题取自 new Env(…) 中的名称或 tag=。下一步会显示将要发布的内容，以及每个没有生成任务的脚本和原因；" +
			"在那里确认之前不会发布任何内容。任务不会自动跟随目录变化：拉取之后请重新预览（未变的脚本不会发布新内容）。",
		"sti.zonehelp":  "每个触发器的时区（脚本中的 cron 是按面板的时区写的，多数为 Asia/Shanghai）。",
		"sti.match":     "只包含匹配的路径（可选）",
		"sti.exclude":   "排除匹配的路径（可选）",
		"sti.matchhelp": "对每个脚本在此目录下的路径使用的正则表达式，即订阅的白名单和黑名单：路径不匹配前者或匹配后者的脚本会被直接略过，不作说明（如 jd_|jx_ 和 backup|test）。",
		"sti.badregex":  "这不是有效的正则表达式：",
		"sti.none":      "此目录中没有脚本生成任务，没有可发布的内容：各脚本的原因见下。",
		"sti.scripts":   "%s 中的脚本",
		"sti.converted": "有 %d 个脚本各生成一个任务和一个触发器。",
		"sti.skipped":   "有 %d 个脚本没有生成任务：请在“新建任务”表单中手工添加，或修正其头部后重新预览。",
		"sti.script":    "脚本",
		"sti.again":     "这些脚本的所有任务和触发器都已按原样发布：再次发布不会改变任何内容。",
		"sti.back":      "返回表单",
		"sti.fix":       "没有发布任何内容。请修正上面所说的问题（与之冲突的项目任务或触发器，或脚本本身），然后重新预览。",
	},
}

func init() {
	for l, words := range scriptsImportMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
