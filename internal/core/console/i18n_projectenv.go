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
	},
	"zh": { //nolint:gosec // G101: the words of a project env's page ("proj.env.secret": 取自密钥), no credential
		"proj.env":        "环境变量",
		"proj.env.help":   "该项目的每个任务启动时都带有这些变量（定义文件中的 env）；任务自己定义的同名变量优先。",
		"proj.env.name":   "名称",
		"proj.env.value":  "值",
		"proj.env.secret": "取自密钥",
		"proj.env.none":   "无：该项目的每个任务只带有自己的 env。",
		"proj.env.edit":   "在项目的定义文件中添加、修改或删除（与 project: 并列的 env:）",
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
