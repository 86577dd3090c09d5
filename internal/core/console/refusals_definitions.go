package console

import (
	"fmt"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// definitionsRefusalsZH say in Chinese what is wrong with a definitions
// file, for the reasons its parse and validation give. {name} stands for
// the error's param of that name (qlerror.ParamsOf), in the page's word
// for it where paramWords has one; a sentence one of whose params the
// error lacks is not used (errorText falls back to the English). The
// page shows the line and column beside the sentence; the sentence names
// the field, so a value given at one line for another field (a task's
// checks are at the task's line) can still be found. Words of a parser
// that is not ours (the YAML decoder's, the cron grammar's) are English:
// a Chinese sentence leaves them out, saying what to check instead; the
// English page shows them.
var definitionsRefusalsZH = map[qlerror.Reason]string{
	// The file's YAML and shape.
	apply.RefusalYAMLSyntax: "YAML 语法错误。请检查这一行和它的上一行：缩进是否对齐（只能用空格，不能用 Tab）、冒号后是否有空格、" +
		"引号和括号是否成对；以 *、@、&、! 开头的值（例如 cron 表达式 */5 * * * *）必须加引号。",
	apply.RefusalNotUTF8Text:      "文件不是 UTF-8 文本；请在编辑器中把文件另存为 UTF-8 编码。",
	apply.RefusalControlCharacter: "这一行含有不可见的控制字符 {char}；请删除这个字符。",
	apply.RefusalEmptyFile:        "文件是空的：它应是一个映射，至少写出 project（项目名称），通常还有 tasks 和 triggers。",
	apply.RefusalTooLarge:         "文件超过了 {limit} 字节（4 MiB）的上限；请把项目拆分到多个文件中（文件中没有的对象保持不变）。",
	apply.RefusalSecondDocument:   "这里开始了第二个 YAML 文档（--- 之后）；一个文件只能写一个项目：请把每个文档放到单独的文件中。",
	apply.RefusalNameTaken:        "项目“{project}”已有名为“{name}”的{kind}：请换一个名称，或在项目的定义文件中修改那个{kind}。",
	apply.RefusalYAMLAnchor:       "不允许使用 YAML 锚点和别名（&{anchor}）；请在每个用到的地方把值完整写出来。",
	apply.RefusalKeyNotString:     "映射的键必须是普通字符串（不能是数字、列表、映射或合并键 <<）；请给这个键加上引号。",
	apply.RefusalUnknownField:     "{field}：没有名为“{value}”的字段，请检查拼写、大小写和缩进。可用的字段：{allowed}。",
	apply.RefusalNotMapping:       "{field}：必须是映射（每行一个“键: 值”）。",
	apply.RefusalNotList:          "{field}：必须是列表（每项以“- ”开头，或写成 [a, b]）。",
	apply.RefusalNotString:        "{field}：必须是一个字符串值，不能是列表或映射。",
	apply.RefusalNotBool:          "{field}：必须是 true 或 false（不加引号）。",
	apply.RefusalTooManyEntries:   "{field}：共 {count} 项，超过了每个文件 {limit} 项的上限；请把项目拆分到多个文件中（文件中没有的对象保持不变）。",
	// Tasks.
	apply.RefusalCommandAndScript: "command（argv 模式）和 shell + script（shell 模式）只能二选一。",
	apply.RefusalNoCommand:        "缺少要运行的命令；请写 command（argv 模式，如 [\"/usr/bin/env\", \"date\"]）或 script（shell 模式）。",
	apply.RefusalEmptyCommand:     "{field}：至少要写出程序的绝对路径，如 [\"/usr/bin/env\", \"date\"]。",
	apply.RefusalEnvMapping:       "{field}：写成映射时只能是 {secret: 密钥名称}；普通的值请直接写成“名称: 值”。",
	apply.RefusalRetryOn:          "{field}：必须是由 {allowed} 中的若干项组成的列表，如 [lost, timed_out]。",
	task.RefusalProgramNotAbsolute: "{field}：程序“{value}”须写成规范的绝对路径（以 / 开头，不含 . 或 .. 段），如 /usr/bin/env；" +
		"程序的完整路径可用 command -v 程序名 查到（argv 模式不经过 shell，不按 PATH 查找）。",
	task.RefusalDirNotAbsolute: "{field}：工作目录“{value}”须是规范的绝对路径（以 / 开头，不含 . 或 .. 段），如 /srv/app。",
	task.RefusalEnvName:        "环境变量名“{value}”无效：只能使用字母、数字和下划线，且不能以数字开头。",
	task.RefusalEnvReserved:    "环境变量名“{value}”是保留的：QingLong 为每次运行设置以 QL_ 开头的变量（QL_RUN_ID、QL_SCHEDULED_AT、QL_ORIGIN 等）；请换一个名称。",
	task.RefusalSecretRef:      "{field}：密钥名称“{value}”无效：只能使用字母、数字、“-”、“_”和“.”，最多 128 个字符；项目自己的密钥写成“项目/名称”。",
	task.RefusalSecretOfAnotherProject: "密钥“{name}”属于项目“{project}”，只有该项目的任务和通知渠道可以引用，项目“{from}”不能引用；" +
		"请设置项目“{from}”自己的密钥（{from}/名称）或全局密钥（名称中不含“/”），并改为引用它。",
	task.RefusalLabelKey:         "{field}：标签键“{value}”无效：只能使用 1–256 个小写字母、数字、“-”、“_”、“.”和“/”，且以字母或数字开头和结尾。",
	task.RefusalWorkerLabelValue: "{field}：标签值“{value}”无效：最多 256 个字母、数字、“_”、“.”、“:”、“/”、“+”和“-”（不能有空格）。",
	task.RefusalAccount:          "{field}：“{value}”不是有效的用户名（组名）或数字 ID：只能使用字母、数字、“_”、“.”和“-”，最多 64 个字符。",
	// Triggers and their schedules.
	apply.RefusalDefinedTwice:          "{kind}“{name}”定义了两次；同一文件中的名称不能重复，请删去或改名其中一个。",
	apply.RefusalUnknownTask:           "触发器“{trigger}”：它的 task“{task}”不是本文件中定义的任务；请在同一文件的 tasks 中定义它，或改正名称。",
	apply.RefusalTriggerOfDisabledTask: "触发器“{trigger}”已启用，但它的任务“{task}”已停用；请启用该任务，或在触发器上设置 enabled: false。",
	apply.RefusalTriggerRebound:        "触发器“{trigger}”已绑定到另一个任务，触发器不会改绑到别的任务；要换任务，请给新的绑定起一个新的触发器名称。",
	apply.RefusalNotInstant:            "{field}：“{value}”不是 RFC 3339 时间；请写成 2026-12-01T00:00:00Z 或 2026-12-01T08:00:00+08:00 这样带时区的时间（1970 年之后，精确到毫秒）。",
	trigger.RefusalNoOccurrence:        "cron 表达式“{value}”在未来几年内都不会触发（例如 2 月 30 日）；请修正日或月。",
	trigger.RefusalEndNotAfterStart:    "trigger.endAt：结束时间必须晚于 startAt。",
	trigger.RefusalCatchUpNotFireOnce:  "trigger.catchUpWindow：只在 misfire: fire_once 下有效（这里是 misfire: {value}）；请删去它，或设置 misfire: fire_once。",
	cron.RefusalEmpty:                  "cron 表达式是空的；请写 5 个字段，如“*/5 * * * *”。",
	cron.RefusalMacro:                  "不支持宏 {macro}；请改写为“{instead}”。",
	cron.RefusalUnknownMacro:           "不支持宏 {macro}；请写 5 个字段，如“0 0 * * *”。",
	cron.RefusalEvery:                  "不支持间隔触发（@every）；请改写为“{instead}”：触发频率相同，但对齐时钟的边界，而不是从某个开始时刻计数。",
	cron.RefusalEveryNone: "不支持间隔触发（@every）；没有 cron 表达式能每 {every} 触发一次：步长在每分钟、每小时或每天的边界重新计数，" +
		"只有能整除它们的周期（如 30s、15m、2h）才有对应的表达式；请换用这样的周期，或列出各个时刻（如“0 0,6,12,18 * * *”）。",
	cron.RefusalReboot: "不支持启动时触发（@reboot）：QingLong 没有在机器或服务器启动时触发的触发器；请从主机自己的启动流程运行该命令" +
		"（systemd 单元，或运行 `ql serve` 的单元的 ExecStartPost=）；要在那时运行 QingLong 的任务，给它一个不会自行触发的触发器，并在那里调用 `ql triggers run 项目/触发器`。",
	cron.RefusalTimezonePrefix: "cron 表达式不支持时区前缀 {prefix}；请把“{zone}”写在单独的 timezone 字段中，表达式写作“{rest}”。",
	cron.RefusalFieldCount: "cron 表达式应有 5 个字段（分 时 日 月 星期），或在开头加上秒共 6 个，这里有 {count} 个（不支持末尾的年份字段）；" +
		"例如“30 2 * * *”表示每天 02:30，“15 30 2 * * *”表示每天 02:30:15。",
	cron.RefusalUnsupported: "cron 表达式的{part}字段“{text}”：不支持 L、W 和 #；请写出明确的值，如日字段“1,15”或星期字段“MON-FRI”。",
	cron.RefusalCharacter:   "cron 表达式的{part}字段“{text}”含有无法识别的字符“{char}”；{part}字段可取 {values}，以及 * ? , - /。",
	cron.RefusalValue:       "cron 表达式的{part}字段“{text}”：“{item}”不是该字段的取值；{part}字段可取 {values}，以及 * ? , - /。",
	cron.RefusalEmptyItem:   "cron 表达式的{part}字段“{text}”中有空的列表项（两个逗号相连）；{part}字段可取 {values}，以及 * ? , - /。",
	cron.RefusalIncomplete:  "cron 表达式的{part}字段“{text}”：“{item}”缺少数字；范围要写出两端（如“5-10”），步长要写在“/”之后（如“5/15”“*/15”）。",
	cron.RefusalStarInRange: "cron 表达式的{part}字段“{text}”：“{item}”不能作为范围的一部分；请写“*”“*/步长”或“a-b/步长”。",
	cron.RefusalField:       "cron 表达式的{part}字段“{text}”无效；{part}字段可取 {values}，以及 * ? , - /。",
	cron.RefusalExpression:  "cron 表达式无效：应为 5 个字段（分 时 日 月 星期），或在开头加上秒共 6 个，例如“30 2 * * *”表示每天 02:30。",
	cron.RefusalStep: "cron 表达式的{part}字段“{text}”：步长 {step} 不小于该字段的 {size} 个取值，所以只匹配范围内的第一个值，每{period}一次；" +
		"请直接写那个值，或用小于 {size} 的步长。更长的周期需要用到更多字段，或多个触发器。",
	cron.RefusalTimezoneMissing: "缺少时区：请写 IANA 时区名，如“Asia/Shanghai”“Europe/Berlin”或“UTC”（不会默认使用主机的时区）。",
	cron.RefusalTimezoneLocal:   "时区不能写“Local”：它表示主机的时区，在每台机器上含义不同，而触发器与通知渠道的时间在每台机器上必须相同；请写 IANA 时区名，如“Asia/Shanghai”或“UTC”。",
	cron.RefusalTimezoneCase:    "未知的 IANA 时区“{value}”（时区名区分大小写）；是否应写作“{suggest}”？",
	cron.RefusalTimezoneUnknown: "未知的 IANA 时区“{value}”；请写“Asia/Shanghai”“Europe/Berlin”或“UTC”这样的时区名（区分大小写）。",
	// The project and its notifications.
	apply.RefusalArchivingWithChanges: "本文件将项目“{project}”归档，同时在同一次应用中新建或修改了“{name}”，而已归档的项目不接受新的修订：" +
		"请让文件中的它与已发布的一致（或从文件中删去新建的它），或者先以 status: active 应用这项修改，再归档。",
	catalog.RefusalProjectMissing:     "项目“{name}”不存在（项目名区分大小写）；新项目由定义文件创建：在定义页面写 project: {name}，预览后应用。",
	apply.RefusalRuleEventAndStreak:   "{field}：on: 事件 和 consecutive_failures: N 只能二选一。",
	apply.RefusalRuleStreakAsEvent:    "{field}：请写 consecutive_failures: N（连续失败的次数），而不是 on: consecutive_failures。",
	apply.RefusalRuleNoEvent:          "{field}：缺少触发条件；请写 on: 事件（succeeded、finished、failed、timed_out、lost、skipped、recovered）或 consecutive_failures: N。",
	apply.RefusalRuleScopeUnknown:     "{field}：“{name}”既不是本文件中的{kind}，也不是项目“{project}”已有的{kind}；请填写该项目的{kind}名称（由其他文件定义的，须先应用那个文件）。",
	notify.RefusalChannelNoURL:        "{field}：缺少 url；请写 url，或在 URL 中含有令牌时写 urlSecret（保存该 URL 的密钥名称）。",
	notify.RefusalChannelURLAndSecret: "{field}：url 和 urlSecret 只能二选一。",
	notify.RefusalChannelURL:          "{field}：须是以 http:// 或 https:// 开头的完整 URL，最长 {limit} 个字符，且不能带用户名或密码（凭据请放在密钥中：urlSecret 或 tokenSecret）。",
	notify.RefusalSecretName:          "{field}：“{value}”不是有效的密钥名称：只能使用字母、数字、“_”、“.”和“-”，最多 {limit} 个字符。",
	notify.RefusalSigningNotWebhook:   "{field}：只有 webhook、dingtalk 和 feishu 渠道会对请求签名；请删去它。",
	notify.RefusalTokenNotWebhook:     "{field}：只有 webhook、ntfy、gotify、pushplus 和 serverchan 渠道会发送令牌；请删去它。",
	notify.RefusalChatIDRequired:      "{field}：telegram 渠道必须写 chatId（机器人发消息的聊天）。",
	notify.RefusalChatIDNotTelegram:   "{field}：只有 telegram 渠道有 chatId；请删去它。",
	notify.RefusalChatID:              "{field}：“{value}”不是有效的 chat id；请写 -1001234567890 或 @channel 这样的值。",
	notify.RefusalRuleTwice:           "{field}：同样的规则写了两次；请删去重复的那一条。",
	notify.RefusalChannelUndefined:    "{field}：渠道“{value}”没有在 notifications.channels 中定义；请先定义它，或改正名称。",
	notify.RefusalReasonsNotSkipped:   "{field}：只有 on: skipped 的规则能按原因过滤；请删去 reasons。",
	notify.RefusalTokenRequired:       "{field}：{kind} 渠道必须写 tokenSecret（保存其令牌的密钥名称）。",
	notify.RefusalMailURL:             "{field}：email 渠道通过 SMTP 发往 host，没有 URL；请删去它。",
	notify.RefusalMailFieldNotEmail:   "{field}：只有 email 渠道有这个字段（host、port、tls、from、to、username、passwordSecret）；请删去它。",
	notify.RefusalMailHost:            "{field}：“{value}”不是主机名或 IP 地址；请只写服务器的名称，如 smtp.qq.com，端口写在 port 中。",
	notify.RefusalMailPortTLS:         "{field}：465 端口从第一个字节起就使用 TLS；请写 tls: implicit（或不写 tls），或者改用服务器提供 STARTTLS 的端口（通常是 587）。",
	notify.RefusalMailLogin:           "{field}：username 和 passwordSecret（保存登录密码或授权码的密钥名称）须同时写出；服务器无需登录即可收信时，两者都不写。",
	notify.RefusalMailPlainLogin:      "{field}：tls: none 的渠道不能登录，否则密码会以明文在网络上传输；请改用 tls: starttls 或 implicit，或使用无需登录的中继服务器。",
	notify.RefusalMailUsernameLine:    "{field}：含有换行符；请把登录名写在一行内。",
	notify.RefusalServerChanKey: "{field}：Server酱的 URL 中带有 SendKey：请把 SendKey 放进密钥并用 tokenSecret 指明（或把整个 URL 放进密钥并用 urlSecret 指明），" +
		"二者只写一个，且不要写 url。",
	notify.RefusalMailAddress: "{field}：“{value}”不是有效的邮件地址；请写成 ops@example.com 或 \"青龙 <ql@example.com>\" 这样的一个地址" +
		"（地址本身只能是 ASCII 字符，显示名称可以是中文）。",
	// The write of a valid file.
	apply.RefusalWriteConflict:  "另一个写入者同时更改了这些定义，本次未应用任何内容；请返回编辑并重新预览，确认变更后再应用。",
	apply.RefusalOutcomeUnknown: "无法确认这次应用是否已写入（例如与数据库的连接中断）；请再次应用同一文件：应用是收敛的，已写入的对象会显示为未变更。",
	apply.RefusalSpecChanged:    "项目“{project}”在修订版 {expected} 之后已被更改（现为 {revision}），本次未应用任何内容；请重新读取该项目，在其当前内容上重新修改，再以新的修订版应用。",
	apply.RefusalCreateOnlyWouldChange: "本次应用只新建尚不存在的对象，而该文件会更改项目“{project}”中已存在的 {count} 个对象：{objects}；未应用任何内容。" +
		"请把它们从文件中删去，或按其现状写出（导出该项目可得到现状；文件不写项目标题会清除标题），如确要更改它们，请不带“只新建”应用。",
	apply.RefusalProjectExists: "项目“{project}”已存在（修订版 {revision}），而本次应用只用于新建项目，未应用任何内容；如要修改它，请读取该项目并以其修订版应用；如要新建，请在文件中换一个项目名。",
	// The checks every field shares.
	validate.RefusalRequired:    "{field}：缺少这个必填字段，或它的值为空；请补上。",
	validate.RefusalNotOneOf:    "{field}：“{value}”不是可选的值；可选：{allowed}。",
	validate.RefusalOutOfRange:  "{field}：“{value}”无效，须是 {min} 到 {max} 之间的整数。",
	validate.RefusalNotDuration: "{field}：“{value}”无效，须是 {min} 到 {max} 之间的时长，精确到毫秒：" + durationFormsZh,
	validate.RefusalTooMany:     "{field}：共 {count} 项，超过了 {limit} 项的上限。",
	validate.RefusalTooLong:     "{field}：过长（长度 {size}，上限 {limit}）。",
	validate.RefusalGivenTwice:  "{field}：“{value}”出现了两次；每项只能写一次，请删去或合并重复的那一项。",
	validate.RefusalNULByte:     "{field}：含有 NUL 字节，请删去它。",
	validate.RefusalNotUTF8:     "{field}：不是有效的 UTF-8 文本；请以 UTF-8 编码保存文件。",
	// A display title's checks.
	validate.RefusalTitleTooLong:    "{field}：共 {count} 个字符，超过了 {limit} 个字符的上限；请缩短标题。",
	validate.RefusalTitleNotOneLine: "{field}：标题只能是一行文字，不能含有换行、制表符或其他控制字符。",
	validate.RefusalTitleDirection:  "{field}：标题含有文字方向控制字符 {char}；标题在聊天消息或邮件主题中以纯文本显示时，它会颠倒其后的名称与结果的显示顺序。请删除它（从右向左书写的文字本身不需要它）。",
}

// paramWords name, per language, the params whose values are words of
// the file's English rather than names the user wrote: the mapping a
// field error is about ("file" is its top level), a run listing's filter
// that is no id, a cron field and the period a step restarts in, and the
// Dependencies page's fixed values (depsWordsZH). A param whose value has no word here (or in
// words, as kind.task) is shown as it is.
var paramWords = map[string]map[string]string{
	"zh": joinWords(depsWordsZH, map[string]string{ //nolint:gosec // G101: the word for a token's name field, no credential
		"field.file": "文件顶层", "field.task": "任务", "field.trigger": "触发器",
		// The names validate.Name checks, each called by what it names.
		"field.project.name": "项目名称", "field.task.name": "任务名称", "field.trigger.name": "触发器名称",
		"field.project.title": "项目标题", "field.task.title": "任务标题", "field.trigger.title": "触发器标题",
		// A subscription's regular expressions (subscription.RefusalPattern)
		// and fields (subscription.RefusalCharacter).
		"field.match": "匹配规则", "field.exclude": "排除规则", "field.url": "仓库地址", "field.branch": "分支", "field.subscription name": "订阅名称",
		"field.notifications.channels name": "通知渠道名称", "field.token name": "令牌名称", "field.user name": "用户名",
		// Who a project_not_in_scope refusal is bound: a token or a user.
		"who.token": "令牌", "who.user": "用户", "field.worker name": "执行节点名称",
		"parameter.project": "项目", "parameter.trigger": "触发器", "parameter.after": "翻页位置（after）",
		"part.second": "秒", "part.minute": "分钟", "part.hour": "小时", "part.day-of-month": "日", "part.month": "月", "part.day-of-week": "星期",
		"period.minute": "分钟", "period.hour": "小时", "period.day": "天", "period.month": "月", "period.year": "年", "period.week": "周",
		"remedy." + schedule.RemedyReapply:  "；也可以用本主机认识的时区重新应用该触发器（`ql apply`，或控制台的“定义”页）：这次发布会取代写有该时区的修订版。",
		"remedy." + schedule.RemedyZoneData: "。在此之前，该项目无法在本主机上恢复为活动状态，而已归档的项目不接受该触发器的新修订版。",
	}),
}

// joinWords is the words of every table; a param value in two tables is
// a mistake caught at start.
func joinWords(tables ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, t := range tables {
		for k, w := range t {
			if _, dup := out[k]; dup {
				panic(fmt.Sprintf("console: param value %q has two words", k))
			}
			out[k] = w
		}
	}
	return out
}

// union is the sentences of every table, one table per group of
// reasons; a reason in two tables is a mistake caught at start.
func union(tables ...map[qlerror.Reason]string) map[qlerror.Reason]string {
	out := map[qlerror.Reason]string{}
	for _, t := range tables {
		for r, s := range t {
			if _, dup := out[r]; dup {
				panic(fmt.Sprintf("console: reason %q has two sentences", r))
			}
			out[r] = s
		}
	}
	return out
}
