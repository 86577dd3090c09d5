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
	},
	"zh": { //nolint:gosec // G101: the words of a project env's page ("proj.env.secret": 取自密钥), no credential
		"proj.env":        "环境变量",
		"proj.env.help":   "该项目的每个任务启动时都带有这些变量（定义文件中的 env）；任务自己定义的同名变量优先。",
		"proj.env.name":   "名称",
		"proj.env.value":  "值",
		"proj.env.secret": "取自密钥",
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
