package console

import (
	"fmt"

	"github.com/qinglong/qinglong/internal/core/qlimport"
)

// panelWhy words each item the panel import notes or leaves out by its
// code in the languages other than English, {name} its param of that
// name; an English page shows the import's own sentence, as the command
// line prints it.
var panelWhy = map[string]map[qlimport.Code]string{
	"zh": {
		qlimport.CodeLabelsLong:        "它的标签（{labels}）超过一个标签的 {max} 个字符：已略去。",
		qlimport.CodeExtraSchedules:    "它的 {count} 个额外计划没有导入：请为每个计划给该任务添加一个触发器。",
		qlimport.CodeTaskHooks:         "它前后运行的命令（task_before、task_after）没有导入：请把它们写进它的命令。",
		qlimport.CodeWorkDir:           "它在 {dir} 中运行（work_dir），这一点没有导入：请把任务的 workingDir 设为该文件夹在服务器上的路径。",
		qlimport.CodeInterval:          "它按时间间隔拉取，而触发器没有这种计划：请在“订阅”页面用 cron 添加它。",
		qlimport.CodePrivateRepo:       "它的 SSH 密钥或密码没有导入：拉取以服务器的账户运行 git，使用该账户自己的凭据（其 ~/.ssh 中的 SSH 密钥）。",
		qlimport.CodeSubscriptionHooks: "它拉取前后运行的命令（sub_before、sub_after）没有导入。",
		qlimport.CodeEnvName:           "shell 变量不能这样命名，面板也没有把它提供给任何任务。",
		qlimport.CodeEnvReserved:       "以 {prefix} 开头的名称是 QingLong 自己的，每条命令都会设置：请在读取它的脚本中给它改名。",
		qlimport.CodeSecretNameLong:    "密钥名 {name} 会超过密钥名允许的长度：请用较短的名称手工设置。",
		qlimport.CodeSecretValue:       "它的值不能保存为密钥：",
		qlimport.CodeDisabledValues: "面板中有 {count} 个值已禁用，面板不会把它们提供给任务：保存在密钥 {secret} 中，不提供给任何任务；" +
			"要提供它，请在项目的 env 中写 {variable}: {secret: {secret}}。",
		qlimport.CodeDependencyType:    "它的类型 {type} 不是面板的任何类型（0 Node.js、1 Python 3、2 Linux）。",
		qlimport.CodeDependencyRemoved: "面板已删除它（或正在删除它）。",
		qlimport.CodeDependencySpec:    "它不是可以声明的依赖：",
		qlimport.CodeTableMissing:      "面板的数据库没有这个表（较旧的面板）：没有可导入的内容。",
		qlimport.CodeScriptsFolder:     "没有复制：请在任务运行之前把该文件夹复制到服务器的脚本文件夹（--scripts-dir 所指的文件夹）。",
		qlimport.CodeConfigUnreadable:  "无法读取（{why}）：其中的内容都没有导入；它设置的通知密钥请改为项目的通知（docs/notifications.md）。",
		qlimport.CodeConfigNotify: "它设置了通知密钥 {names}，QingLong 不读取它们：请改为给项目添加通知渠道和规则（docs/notifications.md），它们会告知失败的运行；" +
			"自己发送消息的脚本从项目的 env 读取这些密钥，请手工设置为密钥。",
		qlimport.CodeConfigExported:     "它把 {names} 导出给每个任务，本导入不读取它们：如果脚本读取它们，请把每个写进项目的 env（需要保密的写成密钥）。",
		qlimport.CodeConfigPanelSetting: "它设置了面板自己的设置 {name}，在这里没有意义。",
		qlimport.CodeSettingTimeout:     "它设置了面板自己的设置 {name}，QingLong 不读取它：请设置任务的超时（未设置时为 1 小时）。",
		qlimport.CodeSettingConcurrency: "它设置了面板自己的设置 {name}，QingLong 不读取它：请用 --concurrency 启动服务器。",
		qlimport.CodeSettingJitter:      "它设置了面板自己的设置 {name}，QingLong 不读取它：请给触发器设置 jitter（随机延迟）。",
		qlimport.CodeSettingMirror:      "它设置了面板自己的设置 {name}，QingLong 不读取它：请在“依赖”页面设置镜像。",
		qlimport.CodeSettingProxy:       "它设置了面板自己的设置 {name}，QingLong 不读取它：请在“依赖”页面设置代理，或在需要它的任务的 env 中设置 HTTPS_PROXY。",
		qlimport.CodeSettingGithubProxy: "它设置了面板自己的设置 {name}，QingLong 不读取它：请在订阅中写经过代理的 URL。",
	},
}

// refKinds are the words of the panel's kinds of things in the
// languages other than English.
var refKinds = map[string]map[qlimport.RefKind]string{
	"zh": {qlimport.RefTask: "任务", qlimport.RefSubscription: "订阅", qlimport.RefEnv: "环境变量", qlimport.RefDependency: "依赖", qlimport.RefTable: "表"},
}

// refIn is r in language l: "任务 12（京东签到）" in Chinese, the command
// line's words in English or where l has no word for its kind.
func refIn(l string, r qlimport.Ref) string {
	kind, ok := refKinds[l][r.Kind]
	switch {
	case !ok:
		return r.String()
	case r.ID != 0:
		return fmt.Sprintf("%s %d（%s）", kind, r.ID, r.Name)
	}
	return kind + " " + r.Name
}

// itemWhyIn is why of it in language l: its code's sentence with its
// params, and the refusal it holds said as the console says refusals;
// the import's English when l has none, a param is missing or the
// refusal has no sentence in l.
func itemWhyIn(l string, it qlimport.Item) string {
	s, ok := panelWhy[l][it.Code]
	if !ok {
		return it.Why
	}
	complete := true
	s = placeholder.ReplaceAllStringFunc(s, func(m string) string {
		v, ok := it.Params[m[1:len(m)-1]]
		complete = complete && ok
		return v
	})
	if !complete {
		return it.Why
	}
	if it.Err != nil {
		said, ok := sentence(l, it.Err)
		if !ok {
			return it.Why
		}
		return s + said
	}
	return s
}
