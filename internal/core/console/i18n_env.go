package console

import "fmt"

// envMessages are the words of the task forms' env editor and of the
// env a preview shows, in English and Simplified Chinese. They join
// messages at start; a key both hold is a mistake, refused at once.
//
//nolint:gosec // G101: the editor's words (one names a secret), no credential
var envMessages = map[string]map[string]string{
	"en": {
		"nt.env":          "Environment variables (optional)",
		"env.help":        "Each row gives the script one variable: a value typed here, or a secret from the Secrets page (JD_COOKIE and the like), whose value the script gets when it starts and which is never shown here. An empty row is left out; tick Remove to take a row out.",
		"env.name":        "Name",
		"env.kind":        "Set from",
		"env.kind.value":  "a value",
		"env.kind.secret": "a secret",
		"env.value":       "Value",
		"env.secret":      "Secret",
		"env.choose":      "— choose a secret —",
		"env.remove":      "Remove",
		"env.add":         "Add a variable",
		"env.typed":       "The secrets are kept where the commands run, not here: type the secret's name (NAME, or PROJECT/NAME for one of the project's own); the preview says whether it is defined.",
		"env.unchosen":    "%s is set from a secret, but none is chosen: choose one, or set it from a value",
		"env.noname":      "a row without a name",
		"env.fromsecret":  "secret %s (its value is given at start, never shown)",
		"env.none":        "None: the script gets the server's environment alone.",
	},
	"zh": {
		"nt.env":          "环境变量（可选）",
		"env.help":        "每一行给脚本一个变量：在此填写的值，或“密钥”页面中的一个密钥（例如 JD_COOKIE），脚本启动时取得它的值，此处从不显示。空行会被忽略；勾选“删除”可去掉一行。",
		"env.name":        "名称",
		"env.kind":        "来源",
		"env.kind.value":  "值",
		"env.kind.secret": "密钥",
		"env.value":       "值",
		"env.secret":      "密钥",
		"env.choose":      "— 选择密钥 —",
		"env.remove":      "删除",
		"env.add":         "添加变量",
		"env.typed":       "密钥保存在运行命令的机器上，不在这里：请输入密钥的名称（NAME，或项目自己的 PROJECT/NAME）；预览会说明它是否已定义。",
		"env.unchosen":    "%s 设为来自密钥，但没有选择密钥：请选择一个，或改为填写值",
		"env.noname":      "一个没有名称的行",
		"env.fromsecret":  "密钥 %s（启动时提供其值，从不显示）",
		"env.none":        "无：脚本只得到服务器的环境变量。",
	},
}

func init() {
	for l, words := range envMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
