package console

import (
	"fmt"

	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/subscription"
)

// importMessages are the words of the crontab import form and of a
// project's definitions download, in English and Simplified Chinese. They
// join messages at start; a key both hold is a mistake, refused at once.
var importMessages = map[string]map[string]string{
	"en": {
		"imp.title":   "Import crontab",
		"imp.invalid": "Nothing was imported",
		"imp.intro": "Paste a crontab (crontab -l, or the qinglong panel's crontab.list) or upload one: each entry becomes a task and a trigger of the project, " +
			"named after its program, as `ql crontab convert` makes them. The next step shows what would be published and every line not converted and why; " +
			"nothing is published before you confirm there.",
		"imp.text":               "Crontab",
		"imp.upload":             "or upload a crontab file",
		"imp.zonehelp":           "The time zone of the entries before any CRON_TZ= or TZ= line (cron's is the host's, which is never implied).",
		"imp.system":             "System crontab: each entry names a user between the schedule and the command (/etc/crontab, /etc/cron.d)",
		"imp.scriptsdir":         "Scripts folder (optional)",
		"imp.scriptsdirhelp":     "The folder on this server holding the scripts the qinglong panel's task command ran (its /ql/scripts), an absolute path: each task SCRIPT line becomes node SCRIPT (.js), python3 -u SCRIPT (.py), bash SCRIPT (.sh) or tsx SCRIPT (.ts; tsx must be installed), run in that folder. It starts as this server's scripts folder (the Scripts page's) where it has one. Empty, those lines stay as written and fail until changed.",
		"imp.account":            "Account the server runs commands as",
		"imp.accounthelp":        "With a system crontab: entries naming this account get no runAs and run as the server does; every other entry's user becomes its task's runAs (all of them while this is empty).",
		"imp.blanktext":          "paste a crontab or choose a file.",
		"imp.none":               "No line of the crontab was converted, so there is nothing to import: why of each line is below.",
		"imp.lines":              "The crontab's lines",
		"imp.converted":          "%d entries of the crontab are converted into a task and a trigger each.",
		"imp.panelenv":           "The qinglong panel gave every task its environment variables (环境变量: JD_COOKIE and the like); project %s has none, so these tasks would start without them. Once imported, add them to the project:",
		"imp.panelenv.edit":      "Edit environment",
		"imp.converted.one":      "%d entry of the crontab is converted into a task and a trigger.",
		"imp.refused":            "%d lines are not converted, so they are not imported: fix them in the crontab and import it again, or add their tasks on the New task form.",
		"imp.refused.one":        "%d line is not converted, so it is not imported: fix it in the crontab and import it again, or add its task on the New task form.",
		"imp.line":               "Line",
		"imp.atline":             "crontab line %d",
		"imp.what":               "What became of it",
		"imp.kind.not-converted": "not converted",
		"imp.kind.converted-but": "converted, but",
		"imp.kind.note":          "note",
		"imp.again":              "Every task and trigger of this crontab is published already as it stands: importing it again publishes nothing new.",
		"imp.copy":               "The crontab converted: save it as a file and apply it with `ql apply -f FILE` where definitions can be published.",
		"imp.back":               "Back to the crontab",
		"imp.fix":                "Nothing was published. Fix the crontab below (or the project's task or trigger it clashes with) and preview it again.",
		"def.download":           "Download definitions (YAML)",
		"def.downloadhelp":       "The file `ql export` writes: keep it as a backup, and apply it back here or with `ql apply -f FILE`.",
	},
	"zh": {
		"imp.title":   "导入 crontab",
		"imp.invalid": "没有导入任何内容",
		"imp.intro": "粘贴一个 crontab（crontab -l 的输出，或青龙面板的 crontab.list），或上传文件：每个条目成为项目中的一个任务和一个触发器，以其程序命名，" +
			"与 `ql crontab convert` 的结果相同。下一步会显示将要发布的内容，以及每个未转换的行和原因；在那里确认之前不会发布任何内容。",
		"imp.text":               "Crontab",
		"imp.upload":             "或上传 crontab 文件",
		"imp.zonehelp":           "在任何 CRON_TZ= 或 TZ= 行之前的条目所用的时区（cron 用主机的时区，这里从不默认）。",
		"imp.system":             "系统 crontab：每个条目在计划和命令之间写用户（/etc/crontab、/etc/cron.d）",
		"imp.scriptsdir":         "脚本目录（可选）",
		"imp.scriptsdirhelp":     "本服务器上存放青龙面板 task 命令所运行脚本的目录（面板中的 /ql/scripts），写绝对路径：每个 task 脚本 行会改写为 node 脚本（.js）、python3 -u 脚本（.py）、bash 脚本（.sh）或 tsx 脚本（.ts，须已安装 tsx），在该目录中运行。本服务器有脚本目录时（脚本页面所管理的目录），默认填入该目录。留空则这些行按原样保留，改写之前运行会失败。",
		"imp.account":            "服务器运行命令的账户",
		"imp.accounthelp":        "仅用于系统 crontab：写这个账户的条目不设 runAs，按服务器自己的账户运行；其他条目的用户成为其任务的 runAs（留空时所有条目都如此）。",
		"imp.blanktext":          "请粘贴 crontab 或选择文件。",
		"imp.none":               "crontab 中没有任何行被转换，没有可导入的内容：各行的原因见下。",
		"imp.lines":              "crontab 的各行",
		"imp.converted":          "crontab 中有 %d 个条目各转换为一个任务和一个触发器。",
		"imp.panelenv":           "青龙面板会给每个任务带上它的环境变量（JD_COOKIE 等）；项目 %s 没有环境变量，这些任务启动时将不带这些变量。导入后，请为项目添加：",
		"imp.panelenv.edit":      "编辑环境变量",
		"imp.refused":            "%d 行未转换，不会导入：请在 crontab 中修正后重新导入，或在“新建任务”表单中添加它们的任务。",
		"imp.line":               "行",
		"imp.atline":             "crontab 第 %d 行",
		"imp.what":               "处理结果",
		"imp.kind.not-converted": "未转换",
		"imp.kind.converted-but": "已转换，但",
		"imp.kind.note":          "注意",
		"imp.again":              "此 crontab 的所有任务和触发器都已按原样发布：再次导入不会发布任何新内容。",
		"imp.copy":               "转换后的 crontab：请保存为文件，在可以发布定义的地方用 `ql apply -f FILE` 应用。",
		"imp.back":               "返回 crontab",
		"imp.fix":                "没有发布任何内容。请修正下面的 crontab（或与之冲突的项目任务或触发器），然后重新预览。",
		"def.download":           "下载定义文件（YAML）",
		"def.downloadhelp":       "即 `ql export` 写出的文件：可作为备份保存，之后在这里或用 `ql apply -f FILE` 应用回来。",
	},
}

// importWhy words each line the crontab converter reports by its code,
// {name} its param of that name: in the languages other than English
// every code; in English the codes whose converter sentence names a flag
// of `ql crontab convert` (--system, --account), which the form has none
// of: these name the form's fields instead. Other codes show the
// converter's own English sentence on an English page.
var importWhy = map[string]map[crontab.Code]string{
	"en": {
		crontab.CodeNotAUser: `a system crontab names the user before the command, and "{user}" is no user name or uid: ` +
			`if this is a user crontab (crontab -l), import it with "System crontab" unticked`,
		crontab.CodeRootCommand: `the command starts with "root": if this is a system crontab (/etc/crontab, /etc/cron.d), ` +
			`whose entries name their user there, import it with "System crontab" ticked`,
		crontab.CodeRunAs: "the tasks of {user}'s entries run as {user} (runAs): {who} accounts only when started as root, " +
			`and otherwise their Runs fail run_as_unavailable; if the server runs commands as {user} already, fill in "Account the server runs commands as" with {user} to leave runAs out`,
	},
	"zh": {
		crontab.CodeNotAnEntry:   "不是“计划 + 命令”：应为 5 个时间字段（分 时 日 月 星期）、以秒开头的 6 个字段或 @ 计划，后接命令。",
		crontab.CodeReboot:       "QingLong 没有在机器启动时触发的触发器；请从主机自己的启动流程（如 systemd 单元）运行该命令。",
		crontab.CodeNotAUser:     "系统 crontab 在命令之前写用户，而“{user}”不是用户名或 uid：如果这是用户 crontab（crontab -l），请不勾选“系统 crontab”再导入。",
		crontab.CodeNoCommand:    "用户 {user} 之后没有命令。",
		crontab.CodeRootCommand:  "命令以“root”开头：如果这是系统 crontab（/etc/crontab、/etc/cron.d，其条目在此处写用户），请勾选“系统 crontab”再导入。",
		crontab.CodePanelCommand: "ql {command} 是青龙面板拉取脚本的命令，但这一行没有写出可用的 URL：ql repo 之后写仓库的 URL（https://主机/所有者/仓库.git），ql raw 之后写文件本身的 URL。",
		crontab.CodePanelRepo: "ql repo（青龙面板的订阅）转换为一个任务，把 {url} 拉取到 \"$QL_SCRIPTS_DIR/{folder}\"：第一次运行时浅克隆，之后获取该分支的最新提交并硬重置到它" +
			"（仓库被强制推送后也能更新；该目录中对仓库文件的修改会丢失）。QL_SCRIPTS_DIR 为空时运行会失败；{setby}" +
			"拉取不会添加任务：用 {command} 列出其脚本的任务，再应用该文件；依赖文件无需处理，整个仓库都在该目录中。",
		// The Subscriptions form refuses such a URL in the same words.
		crontab.CodeRepoURL:    scriptsRefusalsZH[subscription.RefusalURLRepo],
		crontab.CodeRepoBranch: scriptsRefusalsZH[subscription.RefusalBranch],
		crontab.CodeRepoCredentials: "仓库 URL 的用户名和密码中有“/”“?”或“#”，主机名会在那里结束，git 不会把它们当作用户名和密码读取：请把这些字符写成百分号编码（%2F、%3F、%23；路径中的“@”写成 %40）。" +
			"这一{unit}没有转换，以免密码留在任务中。",
		// {field} is said in the form's word for it (paramWords).
		crontab.CodeRepoCharacter: "ql repo 的{field}含有 {char}，这是控制或格式字符（如改变文字方向的字符、零宽空格），显示不出来或会打乱周围文字的顺序，页面显示的就不是 git 和脚本文件夹读到的内容：" +
			"请从这一{unit}中删除它（订阅表单同样拒绝它）。这一{unit}没有转换。",
		crontab.CodeRepoRepeated: "ql repo 拉取到文件夹 {folder}，而{earlier}已拉取到 {other}：这一{unit}被略过，因为两个拉取到同一文件夹（或一个拉取到另一个的文件夹之内）的任务会互相撤销对方的拉取；" +
			"要拉取另一个分支，请在 URL 之后写出分支（ql repo URL \"\" \"\" \"\" 分支）。",
		crontab.CodePanelRaw: "ql raw 转换为一个任务，用 curl 把 {url} 下载到 \"$QL_SCRIPTS_DIR/{file}\"（下载失败时保留上一份）。QL_SCRIPTS_DIR 为空时运行会失败；" +
			"{setby}下载不会添加任务：用 {command} 列出该文件的任务，再应用该文件。",
		crontab.CodeRawCharacter: "ql raw 的 URL 含有 {char}，这是控制或格式字符（如改变文字方向的字符、零宽空格），显示不出来或会打乱周围文字的顺序，页面显示的就不是 curl 和脚本文件夹读到的内容：" +
			"请从这一{unit}中删除它。这一{unit}没有转换。",
		crontab.CodeRawCredentials: "ql raw 的 URL 的用户名和密码中有“/”“?”或“#”，主机名会在那里结束，下载时不会把它们当作用户名和密码读取，密码就会留在任务中：请把这些字符写成百分号编码（%2F、%3F、%23；路径中的“@”写成 %40）。" +
			"这一{unit}没有转换。",
		crontab.CodePanelLogs:    "ql rmlog 是青龙面板自己的命令，QingLong 没有这个命令：服务器会自己删除已结束运行的日志，保留期为 --retention-logs（7 天；边缘配置为 3 天）。",
		crontab.CodePanelUpkeep:  "ql {command} 是青龙面板维护自身的命令，QingLong 没有也不需要这个命令：升级 QingLong 只需替换其程序文件，并在同一数据目录上重新启动。",
		crontab.CodeUnknownMacro: "{macro} 不是 cron 认识的计划。",
		crontab.CodeStandardInput: "cron 把未转义的“%”之后的文本作为命令的标准输入（每个“%”一行），而任务没有标准输入：请改写为管道（printf 'line one\\nline two\\n' | command），" +
			"或把字面的“%”转义为“\\%”。",
		crontab.CodeSeconds: "6 个时间字段按 秒 分 时 日 月 星期 读取（与青龙面板的 crontab 写法相同），此{unit}及之后每个有 6 个字段的{unit}都如此。",
		crontab.CodeTaskCommand: "task 是青龙面板的命令（它在面板的脚本目录中找到脚本，按扩展名用 node、python3 或 bash 运行）；本服务器没有这个命令，运行会以“task: not found”失败（退出码 127）：" +
			"请在定义中写出解释器和脚本路径，如 node /ql/scripts/jd_bean_sign.js，或把任务的 workingDir 设为脚本目录并写 node jd_bean_sign.js。",
		crontab.CodeRunAs: "{user} 的条目对应的任务以 {user} 身份运行（runAs）：{who}只有以 root 启动时才能切换账户，否则其运行以 run_as_unavailable 失败；" +
			"如果服务器已经以 {user} 运行命令，请在“服务器运行命令的账户”中填写 {user}，就不会写 runAs。",
		crontab.CodeBothDays: "cron 只在同时符合日字段“{monthday}”和星期字段“{weekday}”的日子运行它；QingLong 在符合其中任一字段的日子运行。没有表达式能要求两者同时符合：" +
			"请在表达式中保留一个日字段，另一个写“*”，由命令自己检查那一天，不符合时退出。",
		crontab.CodeZoneKept:         "之后的行仍使用时区 {zone}：",
		crontab.CodeShellKept:        "任务的 shell 只能是 /bin/sh 或 /bin/bash；之后的行仍使用 {shell}。",
		crontab.CodeMail:             "QingLong 不发送邮件：运行的输出保存在其日志中（`ql runs logs`）；失败由通知（docs/notifications.md）告知。",
		crontab.CodeReservedName:     "以 QL_ 开头的名称是 QingLong 自己的；它不会写入任务的 env。",
		crontab.CodeTaskInterpreter:  "面板的 task 脚本 改写为解释器加脚本（.js 用 node，.py 用 python3 -u，.sh 用 bash，.ts 用 tsx），在 {dir} 中运行（workingDir），此{unit}及之后每个这样的{unit}都如此；末尾的 now 被去掉，因为这里不加随机延迟{cluster}。",
		crontab.CodeScriptTypeScript: "它的任务写成 {script}，此脚本及之后每个 .ts 脚本都如此：面板用其镜像自带的 ts-node 运行 TypeScript，仅有 node 无法运行；请在运行任务的主机上安装 tsx（npm install -g tsx），否则其运行会以“tsx: not found”失败（退出码 127）。",
		crontab.CodeTaskTypeScript:   "面板的 task 脚本.ts 改写为 tsx 脚本.ts，此{unit}及之后每个这样的{unit}都如此：面板用其镜像自带的 ts-node 运行 TypeScript，仅有 node 无法运行；请在运行任务的主机上安装 tsx（npm install -g tsx），否则其运行会以“tsx: not found”失败（退出码 127）。",
		crontab.CodeScriptNoCron:     "脚本头部没有写 cron（cron: 表达式、cron \"表达式\"，或在脚本名之前写表达式，面板按这些写法读取）：请手工写它的任务。",
		crontab.CodeScriptCron:       "脚本头部的 cron“{cron}”被拒绝：",
		crontab.CodeCommented: "青龙面板把每个已禁用的任务，以及每个 cron 有 6 个字段的任务，写成注释行（# 计划 task …）：这样的行转换后其触发器为停用（enabled: false），此行及之后每个这样的行都如此；" +
			"面板中原本在运行的，请在“触发器”页面勾选后一并启用。",
	},
}

// problemWhyIn is why of a line the converter reported, or of a panel's
// row (rows), in language l: its code's sentence with its params, and
// the refusal it holds said as the console says refusals; the
// converter's English when l has none or a param is missing. On the edge
// binary's console (edge), which serves no cluster, it names no cluster
// or worker.
func problemWhyIn(l string, p crontab.Problem, rows, edge bool) string {
	if p.Code == crontab.CodeSchedule {
		if s, ok := sentence(l, p.Err); ok {
			return s
		}
		return p.Why
	}
	s, ok := importWhy[l][p.Code]
	if !ok {
		return p.Why
	}
	complete := true
	context := whyContext(l, p.Params, rows, edge)
	s = placeholder.ReplaceAllStringFunc(s, func(m string) string {
		key := m[1 : len(m)-1]
		v, ok := p.Params[key]
		if w, said := paramWords[l]["field."+v]; ok && key == "field" && said {
			// A subscription's field, named as the form's refusals
			// name it.
			return w
		}
		if !ok {
			v, ok = context[key]
		}
		complete = complete && ok
		return v
	})
	if !complete {
		return p.Why
	}
	if p.Err != nil {
		if said, ok := sentence(l, p.Err); ok {
			return s + said
		}
		return s + p.Err.Error()
	}
	return s
}

func init() {
	for l, words := range importMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}

// whyContext are the words of a sentence in language l that depend on
// what it is said of rather than on its params: a line or a panel's row
// (unit, earlier), and, where a cluster is served (not edge), what a
// cluster does otherwise (setby, cluster, who); params are the
// sentence's own.
func whyContext(l string, params map[string]string, rows, edge bool) map[string]string {
	zh := l == "zh"
	out := map[string]string{"unit": "line", "who": "a server or worker switches"}
	if zh {
		out = map[string]string{"unit": "行", "who": "服务器或 worker ",
			"earlier": "第 " + params["line"] + " 行的任务 " + params["name"] + " ",
			"setby": "单节点和集群的 worker 都会设置它（即其 --scripts-dir）。在集群上，运行由接到它的 worker 执行，每个 worker 各有一份副本：" +
				"用 placement.labels 把任务固定到运行这些脚本的任务的 worker 上（那些任务也用同样的标签固定），或为每个 worker 各建一个这样的任务，各自固定到它。",
			"cluster": "；在集群上，worker 在它自己主机的 " + params["dir"] + " 中运行它，所以请以 --scripts-dir " + params["dir"] +
				" 启动各 worker（即它们在 $QL_SCRIPTS_DIR 中给出、其拉取任务写入的文件夹）"}
	}
	if rows {
		out["unit"] = map[bool]string{true: "条记录", false: "row"}[zh]
		if zh {
			out["earlier"] = "之前某条记录的任务 " + params["name"] + " "
		}
	}
	if edge {
		out["who"] = map[bool]string{true: "服务器", false: "the server switches"}[zh]
		if zh {
			out["setby"], out["cluster"] = "服务器会设置它（即其 --scripts-dir）。", ""
		}
	}
	return out
}
