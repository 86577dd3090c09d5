package console

import "fmt"

// subscriptionsMessages are the words of the Subscriptions page (订阅管理),
// in English and Simplified Chinese. They join messages at start; a key
// both hold is a mistake, refused at once.
var subscriptionsMessages = map[string]map[string]string{
	"en": {
		"subscriptions":          "Subscriptions",
		"sub.intro":              "Each subscription is a git repository pulled on its schedule into a folder of this server's scripts folder ($QL_SCRIPTS_DIR/OWNER_REPO[_BRANCH]), as the 青龙 panel's ql repo does: a task and a trigger named repo-OWNER-REPO[-BRANCH], which the definitions page shows and edits as any task (its labels say what it subscribes to). A pull adds no task: Tasks from this subscription previews the tasks its scripts make, with its match and exclude, before anything is published.",
		"sub.elsewhere":          "This server does not run the commands: the workers do, each on its own host, with its own scripts folder. A subscription there is a pull task of your own (ql repo lines become one through Import crontab), pinned by placement labels to the worker that runs the scripts' tasks, or one such task per worker; this page manages the subscriptions of a single node.",
		"sub.add":                "Add subscription",
		"sub.url":                "Repository URL",
		"sub.branch":             "Branch",
		"sub.schedule":           "Schedule",
		"sub.folder":             "Folder",
		"sub.filter":             "Scripts",
		"sub.match":              "match",
		"sub.exclude":            "exclude",
		"sub.enabled":            "Enabled",
		"sub.last":               "Last pull",
		"sub.next":               "Next pull",
		"sub.yes":                "yes",
		"sub.no":                 "no",
		"sub.defaultbranch":      "the repository's default",
		"sub.notrigger":          "no trigger: pulled by no schedule",
		"sub.pull":               "Pull now",
		"sub.edit":               "Edit",
		"sub.delete":             "Delete",
		"sub.cancel":             "Cancel",
		"sub.tasks":              "Tasks from this subscription",
		"sub.empty":              "No subscription yet: add one, or import a crontab whose ql repo lines become them.",
		"sub.formintro":          "The URL and branch name the subscription and its folder, as ql repo does: repo-OWNER-REPO[-BRANCH] pulling into OWNER_REPO[_BRANCH]. Saving publishes its task and trigger at once.",
		"sub.urlexample":         "https://github.com/OWNER/REPO.git",
		"sub.urlhelp":            "https://host/OWNER/REPO.git, ssh://git@host/OWNER/REPO.git, git@host:OWNER/REPO.git, or file:///path/OWNER/REPO.git for one on this host. A private repository over https may carry a token (https://TOKEN@host/...): it is kept in the task, never shown in the list or the audit trail.",
		"sub.retype.new":         "The user and token you typed in the URL are not shown again, so that no page holds them: type them into the URL again before saving, or the subscription pulls without them.",
		"sub.retype.edit":        "The user and token you typed in the URL are not shown again, so that no page holds them: type them into the URL again before saving, or the subscription keeps the ones it had.",
		"sub.branchhelp":         "Empty: the repository's default branch.",
		"sub.matchhelp":          "Regular expressions (the panel's whitelist and blacklist) choosing which scripts Tasks from this subscription makes tasks of; empty: every script whose header gives a schedule.",
		"sub.enabledbox":         "Enabled: pulled on its schedule",
		"sub.save":               "Save",
		"sub.deletewhat":         "Delete subscription %s of project %s? Its task and trigger are disabled and no longer a subscription (a task is never deleted: its Runs and history stay, and the definitions page still shows it).",
		"sub.folderstays":        "Its folder %s stays in the scripts folder, with the tasks made of its scripts, unless you tick the box.",
		"sub.deletefolder":       "Also delete the folder %s and everything in it",
		"sub.nofolder":           "Its folder %s is not in the scripts folder (never pulled, or deleted): nothing there is deleted.",
		"sub.done.created":       "Subscription %s added: its first pull clones into %s (Pull now to start it).",
		"sub.done.updated":       "Subscription %s saved (folder %s).",
		"sub.done.otherhost":     "Subscription %s saved (folder %s). Its URL now leads to another host, port or scheme than the one its task's credentials given from a secret (SUBSCRIPTION_GIT_USER, SUBSCRIPTION_GIT_PASSWORD) were set for, so they were removed from the task's env and it pulls without credentials: to pull with some, type the user and token into its URL, or set those variables in the task's env again.",
		"sub.done.deleted":       "Subscription %s deleted; its folder %s stays in the scripts folder.",
		"sub.done.deletedfolder": "Subscription %s deleted, and its folder %s with it.",
	},
	"zh": {
		"subscriptions":          "订阅管理",
		"sub.intro":              "每个订阅是一个 git 仓库，按其计划拉取到本服务器脚本文件夹中的一个文件夹（$QL_SCRIPTS_DIR/OWNER_REPO[_BRANCH]），与青龙面板的 ql repo 相同：它是名为 repo-OWNER-REPO[-BRANCH] 的一个任务和一个触发器，定义页面像其他任务一样显示和编辑它（其标签说明订阅的内容）。拉取不会添加任务：“从此订阅生成任务”会按其匹配和排除规则预览其脚本生成的任务，确认之前不会发布任何内容。",
		"sub.elsewhere":          "本服务器不运行命令：命令由各 worker 在各自的主机上运行，各有自己的脚本文件夹。在那里，订阅是你自己的拉取任务（ql repo 行可通过“导入 crontab”转换成这样的任务），用 placement 标签固定到运行脚本任务的 worker，或每个 worker 各一个这样的任务；本页面管理单节点的订阅。",
		"sub.add":                "添加订阅",
		"sub.url":                "仓库地址",
		"sub.branch":             "分支",
		"sub.schedule":           "计划",
		"sub.folder":             "文件夹",
		"sub.filter":             "脚本",
		"sub.match":              "匹配",
		"sub.exclude":            "排除",
		"sub.enabled":            "启用",
		"sub.last":               "上次拉取",
		"sub.next":               "下次拉取",
		"sub.yes":                "是",
		"sub.no":                 "否",
		"sub.defaultbranch":      "仓库的默认分支",
		"sub.notrigger":          "没有触发器：不会按计划拉取",
		"sub.pull":               "立即拉取",
		"sub.edit":               "编辑",
		"sub.delete":             "删除",
		"sub.cancel":             "取消",
		"sub.tasks":              "从此订阅生成任务",
		"sub.empty":              "还没有订阅：添加一个，或导入含 ql repo 行的 crontab 来生成。",
		"sub.formintro":          "仓库地址和分支决定订阅的名称和文件夹，与 ql repo 相同：repo-OWNER-REPO[-BRANCH]，拉取到 OWNER_REPO[_BRANCH]。保存后立即发布其任务和触发器。",
		"sub.urlexample":         "https://github.com/OWNER/REPO.git",
		"sub.urlhelp":            "https://host/OWNER/REPO.git、ssh://git@host/OWNER/REPO.git、git@host:OWNER/REPO.git，或本机上的 file:///path/OWNER/REPO.git。通过 https 访问的私有仓库可以带令牌（https://TOKEN@host/...）：令牌保存在任务中，列表和审计记录中都不会显示。",
		"sub.retype.new":         "你在仓库地址中输入的用户名和令牌不会再次显示，以免任何页面含有它们：保存前请在地址中重新输入，否则订阅拉取时不带它们。",
		"sub.retype.edit":        "你在仓库地址中输入的用户名和令牌不会再次显示，以免任何页面含有它们：保存前请在地址中重新输入，否则订阅保留原有的用户名和令牌。",
		"sub.branchhelp":         "留空：使用仓库的默认分支。",
		"sub.matchhelp":          "正则表达式（面板的白名单和黑名单），决定“从此订阅生成任务”为哪些脚本生成任务；留空：所有在文件头写了计划的脚本。",
		"sub.enabledbox":         "启用：按计划拉取",
		"sub.save":               "保存",
		"sub.deletewhat":         "删除项目 %[2]s 的订阅 %[1]s？其任务和触发器将被停用，不再是订阅（任务不会被删除：其运行记录和历史保留，定义页面仍会显示它）。",
		"sub.folderstays":        "除非勾选下面的选项，其文件夹 %s 以及由其脚本生成的任务都会保留在脚本文件夹中。",
		"sub.deletefolder":       "同时删除文件夹 %s 及其中的全部内容",
		"sub.nofolder":           "其文件夹 %s 不在脚本文件夹中（从未拉取，或已被删除）：不会删除那里的任何内容。",
		"sub.done.created":       "已添加订阅 %s：首次拉取会克隆到 %s（点击“立即拉取”开始）。",
		"sub.done.updated":       "已保存订阅 %s（文件夹 %s）。",
		"sub.done.otherhost":     "已保存订阅 %s（文件夹 %s）。其 URL 现在指向的主机、端口或协议，与任务中由密钥提供的凭据（SUBSCRIPTION_GIT_USER、SUBSCRIPTION_GIT_PASSWORD）所针对的不同，因此这些凭据已从任务的环境变量中移除，之后拉取不带凭据：如需凭据，请在 URL 中填写用户名和令牌，或在任务的环境变量中重新设置这两个变量。",
		"sub.done.deleted":       "已删除订阅 %s；其文件夹 %s 保留在脚本文件夹中。",
		"sub.done.deletedfolder": "已删除订阅 %s，并删除了其文件夹 %s。",
	},
}

func init() {
	for l, words := range subscriptionsMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
