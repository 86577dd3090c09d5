package console

import "fmt"

// panelMessages are the words of the qinglong panel import page, in
// English and Simplified Chinese.
//
//nolint:gosec // G101: the page's words (some name secrets), no credential
var panelMessages = map[string]map[string]string{
	"en": {
		"qlp.title": "Import from a qinglong panel",
		"qlp.intro": "Give the data folder of a qinglong panel (青龙, its /ql/data) as this server's host sees it, or upload the panel's db/database.sqlite. " +
			"The preview shows what `ql import qinglong` shows: each task and subscription as a task and its trigger, the environment variables as secrets (by name, never a value), " +
			"the dependencies, and every item not converted with why. Nothing is stored before you press Import there. The panel's database is only read, never written or locked.",
		"qlp.commandline": "This server cannot store what the import makes: on a cluster the workers keep the secrets and install the packages. The import is a command-line step: " +
			"run `ql import qinglong DIR --project NAME --tz ZONE > FILE` on a host that can read the panel's data folder, apply FILE with `ql apply -f FILE`, " +
			"set the secrets it lists in each worker's --secrets-file, and install the dependencies on each worker's host.",
		"qlp.dir":               "The panel's data folder on this server's host",
		"qlp.dirhelp":           "An absolute path, such as /ql/data (the folder holding db/database.sqlite, config and scripts), readable by the account the server runs as. With the folder, the preview also notes its scripts and its config/config.sh.",
		"qlp.upload":            "or upload the panel's db/database.sqlite",
		"qlp.uploadhelp":        "Copied while the panel was stopped (docker stop). It is kept in a private temporary file while it is read, and removed before the page answers.",
		"qlp.zonehelp":          "The time zone the panel's schedules were written in (the panel's container's, most often Asia/Shanghai).",
		"qlp.source":            "Give the panel's data folder, or upload its database.",
		"qlp.both":              "Give the panel's data folder or upload its database, not both.",
		"qlp.absolute":          "write an absolute path, such as /ql/data.",
		"qlp.previewbtn":        "Preview the import",
		"qlp.preview":           "What the import would store",
		"qlp.tasks":             "Tasks and their triggers",
		"qlp.tasks.count":       "%d of the panel's tasks and subscriptions become a task and a trigger each (%d of them disabled).",
		"qlp.ref":               "In the panel",
		"qlp.task":              "Task",
		"qlp.trigger":           "Trigger",
		"qlp.command":           "Command",
		"qlp.pulls":             "pulls %s",
		"qlp.pulls.branch":      "pulls %s (branch %s)",
		"qlp.downloads":         "downloads %s",
		"qlp.disabled":          "disabled",
		"qlp.secrets":           "Secrets (values are never shown)",
		"qlp.secret.given":      "in the project's env as %s; values joined by &: %d",
		"qlp.secret.off":        "disabled in the panel, so given to no task; values joined by &: %d",
		"qlp.remarksep":         "; ",
		"qlp.remarks":           "; remarks: ",
		"qlp.none":              "None.",
		"qlp.deps":              "Dependencies (declared here, installed from the Dependencies page)",
		"qlp.skipped":           "Not converted",
		"qlp.notes":             "Notes",
		"qlp.yaml":              "The definitions file it publishes",
		"qlp.applyhelp":         "Import sets the secrets in this server's secrets file, publishes the definitions and declares the dependencies, each change in the audit trail; importing the same panel again changes nothing.",
		"qlp.again":             "Choose the same database file again (the upload was removed after the preview):",
		"qlp.apply":             "Import",
		"qlp.stale":             "The panel read now is not the one previewed (it changed, or another file was chosen): nothing was stored. Review the preview below and import again.",
		"qlp.applied":           "Imported",
		"qlp.nothing":           "Nothing changed: everything of this panel was imported already.",
		"qlp.secret.set":        "secret %s set",
		"qlp.secret.replaced":   "secret %s replaced",
		"qlp.secrets.unchanged": "secrets unchanged: %d",
		"qlp.unchanged":         "project, tasks and triggers unchanged: %d",
		"qlp.declared":          "dependency %s declared",
		"qlp.declaredalready":   "dependencies declared already: %d",
		"qlp.depslink":          "Install the dependencies",
	},
	"zh": {
		"qlp.title": "从青龙面板导入",
		"qlp.intro": "给出青龙面板的数据目录（面板中的 /ql/data，按本服务器主机上的路径），或上传面板的 db/database.sqlite。" +
			"预览显示与 `ql import qinglong` 相同的内容：每个任务和订阅成为一个任务及其触发器，环境变量成为密钥（只显示名称，从不显示值），" +
			"依赖，以及每个未转换的项目和原因。在预览中点击“导入”之前不会保存任何内容。面板的数据库只被读取，不会被写入或锁定。",
		"qlp.commandline": "本服务器无法保存导入的结果：在集群上，密钥由各 worker 保存，依赖也由它们安装。导入需要在命令行完成：" +
			"在能读取面板数据目录的主机上运行 `ql import qinglong DIR --project NAME --tz ZONE > FILE`，用 `ql apply -f FILE` 应用 FILE，" +
			"把它列出的密钥写入每个 worker 的 --secrets-file，并在每个 worker 的主机上安装依赖。",
		"qlp.dir":               "面板在本服务器主机上的数据目录",
		"qlp.dirhelp":           "绝对路径，如 /ql/data（包含 db/database.sqlite、config 和 scripts 的目录），服务器运行所用的账户须能读取。给出目录时，预览还会说明其中的 scripts 和 config/config.sh。",
		"qlp.upload":            "或上传面板的 db/database.sqlite",
		"qlp.uploadhelp":        "请在面板停止时（docker stop）复制。读取期间它保存在一个私有临时文件中，页面应答之前即被删除。",
		"qlp.zonehelp":          "面板中计划所用的时区（面板容器的时区，通常为 Asia/Shanghai）。",
		"qlp.source":            "请给出面板的数据目录，或上传它的数据库。",
		"qlp.both":              "请给出面板的数据目录或上传它的数据库，二者只选其一。",
		"qlp.absolute":          "请写绝对路径，如 /ql/data。",
		"qlp.previewbtn":        "预览导入",
		"qlp.preview":           "导入将保存的内容",
		"qlp.tasks":             "任务及其触发器",
		"qlp.tasks.count":       "面板中有 %d 个任务和订阅各成为一个任务和一个触发器（其中 %d 个已停用）。",
		"qlp.ref":               "面板中的项目",
		"qlp.task":              "任务",
		"qlp.trigger":           "触发器",
		"qlp.command":           "命令",
		"qlp.pulls":             "拉取 %s",
		"qlp.pulls.branch":      "拉取 %s（分支 %s）",
		"qlp.downloads":         "下载 %s",
		"qlp.disabled":          "已停用",
		"qlp.secrets":           "密钥（从不显示值）",
		"qlp.secret.given":      "在项目的环境变量中作为 %s；以 & 连接的值：%d 个",
		"qlp.secret.off":        "在面板中已禁用，因此不提供给任何任务；以 & 连接的值：%d 个",
		"qlp.remarksep":         "；",
		"qlp.remarks":           "；备注：",
		"qlp.none":              "无。",
		"qlp.deps":              "依赖（在这里声明，在“依赖”页面安装）",
		"qlp.skipped":           "未转换",
		"qlp.notes":             "注意",
		"qlp.yaml":              "将发布的定义文件",
		"qlp.applyhelp":         "“导入”会把密钥写入本服务器的密钥文件，发布定义，并声明依赖，每项变更都记入审计记录；再次导入同一面板不会改变任何内容。",
		"qlp.again":             "请再次选择同一个数据库文件（上传的文件在预览后已删除）：",
		"qlp.apply":             "导入",
		"qlp.stale":             "现在读到的面板与预览时的不同（面板已变化，或选择了另一个文件）：没有保存任何内容。请查看下面的预览后再导入。",
		"qlp.applied":           "已导入",
		"qlp.nothing":           "没有任何变化：这个面板的所有内容都已导入过。",
		"qlp.secret.set":        "已设置密钥 %s",
		"qlp.secret.replaced":   "已替换密钥 %s",
		"qlp.secrets.unchanged": "未变化的密钥：%d 个",
		"qlp.unchanged":         "未变化的项目、任务和触发器：%d 个",
		"qlp.declared":          "已声明依赖 %s",
		"qlp.declaredalready":   "已声明过的依赖：%d 个",
		"qlp.depslink":          "安装依赖",
	},
}

func init() {
	for l, words := range panelMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
