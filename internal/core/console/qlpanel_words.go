package console

import (
	"fmt"

	"github.com/qinglong/qinglong/internal/core/qlimport"
)

// panelWhy words each item the panel import notes or leaves out by its
// code, {name} its param of that name, in every language the console
// speaks: English too, since the import's own sentences are the command
// line's, which send a panel user to server flags and files; these say
// what to do on the console's pages, and name a server setting only
// where no page changes it.
var panelWhy = map[string]map[qlimport.Code]string{
	"en": {
		qlimport.CodeLabelsLong:        "its labels ({labels}) are longer than a label's {max} characters: left out",
		qlimport.CodeExtraSchedules:    "its {count} extra schedules are not imported: once it is imported, add a trigger of its task for each in the project's file on the Definitions page",
		qlimport.CodeTaskHooks:         "its commands run before and after it (task_before, task_after) are not imported: once it is imported, write them into its script with Edit task on its trigger's page",
		qlimport.CodeWorkDir:           "it ran in {dir} (work_dir), which is not imported: once it is imported, set its Working directory to that folder as this server's host sees it, with Edit task on its trigger's page",
		qlimport.CodeInterval:          "it is pulled at an interval, which no trigger has: add it on the Subscriptions page with a cron schedule",
		qlimport.CodePrivateRepo:       "its SSH key or password is not imported: the pull runs git as the account the server runs as, with that account's own credentials (an SSH key in its ~/.ssh); over https, edit the subscription on the Subscriptions page and write a token in its URL (https://TOKEN@host/...)",
		qlimport.CodeSubscriptionHooks: "its commands run before and after a pull (sub_before, sub_after) are not imported: a pull here runs only git; if its scripts need them, add a task running them (New task)",
		qlimport.CodeEnvName:           "no shell variable may be named so, and the panel gave it to no task either",
		qlimport.CodeEnvReserved:       "names starting with {prefix} are QingLong's own, set for every command: rename it in the scripts that read it (the Scripts page edits them), then set it under its new name on the Secrets page and give it to the project with Edit environment",
		qlimport.CodeSecretNameLong:    "the secret's name {name} would be longer than a secret's name may be: set it under a shorter name on the Secrets page, and give it to the project with Edit environment",
		qlimport.CodeSecretValue:       "its value cannot be kept as a secret: ",
		qlimport.CodeDisabledValues: "its values disabled in the panel ({count}), which the panel gives no task, are kept in secret {secret} and given to no task; " +
			"to give them, add {variable} from secret {secret} with Edit environment",
		qlimport.CodeDependencyType:    "its type {type} is none of the panel's (0 Node.js, 1 Python 3, 2 Linux): if it is needed, add it by hand on the Dependencies page",
		qlimport.CodeDependencyRemoved: "the panel removed it (or was removing it)",
		qlimport.CodeDependencySpec:    "it is no dependency that can be declared: ",
		qlimport.CodeTableMissing:      "the panel's database has no such table (an older panel's): nothing of it to import",
		qlimport.CodeScriptsFolder: "not copied: before the tasks run, put its scripts in this server's scripts folder: upload them on the Scripts page (New folder makes their subfolders), " +
			"or copy the folder there on the server's host (the Scripts page names where it is)",
		qlimport.CodeConfigUnreadable: "could not be read ({why}): nothing of it is imported; the notification keys it sets become the project's notification channels and rules, in its file on the Definitions page",
		qlimport.CodeConfigNotify: "it sets the notification keys {names}, which QingLong does not take: give the project a notification channel and rule instead, in its file on the Definitions page, which tell of failed Runs; " +
			"a script that sends its own messages reads them from the project's env: set each on the Secrets page and give it to the project with Edit environment",
		qlimport.CodeConfigExported:     "it exports {names} to every task, which this import does not read: if the scripts read them, add each with Edit environment (as a secret, set on the Secrets page, what must stay hidden)",
		qlimport.CodeConfigPanelSetting: "it sets {name}, the panel's own setting, which means nothing here",
		qlimport.CodeSettingTimeout:     "it sets {name}, the panel's own setting, which QingLong does not take: set the tasks' Timeout with Edit task on their triggers' pages (1h when not set)",
		qlimport.CodeSettingConcurrency: "it sets {name}, the panel's own setting, which QingLong does not take: how many Runs go at once is the server's --concurrency setting, which no page changes (ask whoever runs QingLong)",
		qlimport.CodeSettingJitter:      "it sets {name}, the panel's own setting, which QingLong does not take: give the triggers a jitter in the project's file on the Definitions page",
		qlimport.CodeSettingMirror:      "it sets {name}, the panel's own setting, which QingLong does not take: set the mirror under Mirrors and proxy on the Dependencies page",
		qlimport.CodeSettingProxy:       "it sets {name}, the panel's own setting, which QingLong does not take: set the proxy under Mirrors and proxy on the Dependencies page, or HTTPS_PROXY in the env of the tasks that need it (Edit task)",
		qlimport.CodeSettingGithubProxy: "it sets {name}, the panel's own setting, which QingLong does not take: write the proxied URL in the subscription on the Subscriptions page",
	},
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
		qlimport.CodeScriptsFolder:     "没有复制：请在任务运行之前把其中的脚本放进本服务器的脚本文件夹：在“脚本”页面上传（用“新建文件夹”建出其子文件夹），或在服务器主机上把该文件夹复制过去（“脚本”页面写明它的位置）。",
		qlimport.CodeConfigUnreadable:  "无法读取（{why}）：其中的内容都没有导入；它设置的通知密钥请改为项目的通知渠道和规则，写在“定义”页面的项目文件中。",
		qlimport.CodeConfigNotify: "它设置了通知密钥 {names}，QingLong 不读取它们：请改为在“定义”页面的项目文件中给项目添加通知渠道和规则，它们会告知失败的运行；" +
			"自己发送消息的脚本从项目的 env 读取这些密钥：请在“密钥”页面设置每一个，再用“编辑环境变量”提供给项目。",
		qlimport.CodeConfigExported:     "它把 {names} 导出给每个任务，本导入不读取它们：如果脚本读取它们，请把每个写进项目的 env（需要保密的写成密钥）。",
		qlimport.CodeConfigPanelSetting: "它设置了面板自己的设置 {name}，在这里没有意义。",
		qlimport.CodeSettingTimeout:     "它设置了面板自己的设置 {name}，QingLong 不读取它：请设置任务的超时（未设置时为 1 小时）。",
		qlimport.CodeSettingConcurrency: "它设置了面板自己的设置 {name}，QingLong 不读取它：同时运行多少个运行由服务器的 --concurrency 设置决定，没有页面能修改它（请询问运行 QingLong 的人）。",
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
// the import's English when l has none or a param is missing, and when
// the refusal has no sentence in l, but for English, whose refusals are
// their own words.
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
		switch {
		case ok:
		case l == "en":
			// The refusals are English already: their own words.
			said = it.Why
		default:
			return it.Why
		}
		return s + said
	}
	return s
}
