package console

import "fmt"

// projectEnvMessages are the words of a project's env on its page, in
// English and Simplified Chinese. They join messages at start; a key both
// hold is a mistake, refused at once.
var projectEnvMessages = map[string]map[string]string{
	"en": {
		"proj.env":        "Environment variables",
		"proj.env.help":   "Every task of the project starts with these (env in its definitions file); a task's own variable of the same name wins.",
		"proj.env.name":   "Name",
		"proj.env.value":  "Value",
		"proj.env.secret": "from secret",
		"proj.env.none":   "None: every task of the project starts with its own env alone.",
		"proj.env.edit":   "Add, change or remove them in the project's file (env: beside project:)",
		"pe.title":        "Edit environment",
		"pe.yours":        "What you sent, not applied: the form below shows the project's env as it is now; make your change to it again.",
		"pe.after":        "The next step shows what would change; nothing changes until you confirm it there. Changing the project's env publishes no new revision of its tasks: each starts with the new env from its next run.",
	},
	"zh": { //nolint:gosec // G101: the words of a project env's page ("proj.env.secret": 取自密钥), no credential
		"proj.env":        "环境变量",
		"proj.env.help":   "该项目的每个任务启动时都带有这些变量（定义文件中的 env）；任务自己定义的同名变量优先。",
		"proj.env.name":   "名称",
		"proj.env.value":  "值",
		"proj.env.secret": "取自密钥",
		"proj.env.none":   "无：该项目的每个任务只带有自己的 env。",
		"proj.env.edit":   "在项目的定义文件中添加、修改或删除（与 project: 并列的 env:）",
		"pe.title":        "编辑环境变量",
		"pe.yours":        "你提交的内容（未应用）：下面的表单显示项目现在的环境变量，请在其上重新做你的修改。",
		"pe.after":        "下一步会显示将要发生的变更；在那里确认之前不会修改任何内容。修改项目的环境变量不会发布其任务的新修订版：每个任务从下一次运行起带有新的环境变量。",
	},
}

func init() {
	for l, words := range projectEnvMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
