package console

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Pieces of the broken files below: a file with one task a (its fields
// from line 4), one with a trigger t of it (the trigger at line 6, its
// fields from line 8), and one with notifications (from line 6).
const defsTask = "project: demo\ntasks:\n  - name: a\n    script: echo\n"

func withTask(fields string) string { return "project: demo\ntasks:\n  - name: a\n" + fields }
func withTrigger(fields string) string {
	return defsTask + "triggers:\n  - name: t\n    task: a\n" + fields
}
func withCron(expr, zone string) string {
	return withTrigger("    cron: '" + expr + "'\n    timezone: " + zone + "\n")
}
func withNotifications(n string) string { return defsTask + "notifications:\n" + n }

const webhook = "  channels:\n    ops: {type: webhook, url: 'https://hooks.example/x'}\n"

// brokenFile is a definitions file with one mistake: the reason it is
// refused for, the line it is refused at (0: none) and what the Chinese
// sentence must say of it (the value, the field, what to write).
type brokenFile struct {
	what, yaml string
	reason     qlerror.Reason
	line       int
	zh         []string
}

var brokenFiles = []brokenFile{
	{"a flow list left open", "project: [demo\n", apply.RefusalYAMLSyntax, 1, []string{"YAML 语法错误", "括号是否成对"}},
	{"an unquoted cron expression", withTrigger("    cron: */5 * * * *\n    timezone: UTC\n"), apply.RefusalYAMLSyntax, 8, []string{"必须加引号"}},
	{"a tab", "\t", apply.RefusalYAMLSyntax, 1, []string{"YAML 语法错误", "Tab"}},
	{"a byte that is not UTF-8", withTask("    script: echo \xff\n"), apply.RefusalNotUTF8Text, 4, []string{"另存为 UTF-8 编码"}},
	{"a control character", withTask("    script: \"echo \x01\"\n"), apply.RefusalControlCharacter, 4, []string{"控制字符 U+0001", "请删除这个字符"}},
	{"an empty file", "# nothing yet\n", apply.RefusalEmptyFile, 0, []string{"文件是空的"}},
	{"a file over 4 MiB", "project: demo\n#" + strings.Repeat("x", apply.MaxFileSize), apply.RefusalTooLarge, 0, []string{"4194304 字节"}},
	{"a second document", "project: demo\n---\nproject: other\n", apply.RefusalSecondDocument, 3, []string{"第二个 YAML 文档"}},
	{"an anchor", "x: &base 1\nproject: demo\n", apply.RefusalYAMLAnchor, 1, []string{"&base"}},
	{"a number as a key", "project: demo\n1: x\n", apply.RefusalKeyNotString, 2, []string{"加上引号"}},
	{"an unknown top-level field", "project: demo\nowner: me\n", apply.RefusalUnknownField, 2, []string{"文件顶层：", "“owner”", "project、status、tasks"}},
	{"an unknown task field", withTask("    script: echo\n    retries: 3\n"), apply.RefusalUnknownField, 5, []string{"任务：", "“retries”", "retry"}},
	{"an unknown trigger field", withCron("0 * * * *", "UTC") + "    colour: red\n", apply.RefusalUnknownField, 10, []string{"触发器：", "“colour”"}},
	{"a field given twice", "project: demo\nproject: again\n", validate.RefusalGivenTwice, 2, []string{"“project”出现了两次"}},
	{"the project missing", "tasks: []\n", validate.RefusalRequired, 1, []string{"project：缺少这个必填字段"}},
	{"a trigger without its zone", withTrigger("    cron: '0 * * * *'\n"), validate.RefusalRequired, 6, []string{"触发器“t”：trigger.timezone：缺少"}},
	{"a task without a name", withTask("    script: echo\n  - script: echo\n"), validate.RefusalNameMissing, 5, []string{"请填写任务名称。"}},
	{"a project name of capitals", "project: Demo Project\n", validate.RefusalNameShape, 1, []string{"项目名称“Demo Project”只能使用小写字母"}},
	{"a project name too long", "project: " + strings.Repeat("a", 129) + "\n", validate.RefusalNameTooLong, 1, []string{"项目名称过长：最多 128 个字符"}},
	{"a title too long", "project: demo\ntitle: " + strings.Repeat("签", 81) + "\n", validate.RefusalTitleTooLong, 2, []string{"项目标题：共 81 个字符", "80 个字符的上限"}},
	{"a title of two lines", withTask("    script: echo\n    title: \"每日\\n签到\"\n"), validate.RefusalTitleNotOneLine, 5, []string{"任务标题：标题只能是一行文字"}},
	{"a title reversing what follows it", withTask("    script: echo\n    title: \"每日\\u202e签到\"\n"), validate.RefusalTitleDirection, 5, []string{"任务标题：标题含有文字方向控制字符 U+202E"}},
	{"a status of none", "project: demo\nstatus: closed\n", validate.RefusalNotOneOf, 1, []string{"project.status：“closed”", "active、archived"}},
	{"tasks not a list", "project: demo\ntasks: {}\n", apply.RefusalNotList, 2, []string{"tasks：必须是列表"}},
	{"a task not a mapping", "project: demo\ntasks:\n  - x\n", apply.RefusalNotMapping, 3, []string{"任务：必须是映射"}},
	{"a script that is a list", withTask("    script: [echo]\n"), apply.RefusalNotString, 4, []string{"task.script：必须是一个字符串值"}},
	{"enabled in words", withTask("    script: echo\n    enabled: yes please\n"), apply.RefusalNotBool, 5, []string{"task.enabled：必须是 true 或 false"}},
	{"too many tasks", "project: demo\ntasks:\n" + strings.Repeat("  - {}\n", apply.MaxTasks+1), apply.RefusalTooManyEntries, 3, []string{"共 10001 项", "10000 项"}},
	{"a command and a script", withTask("    script: echo\n    command: [/bin/date]\n"), apply.RefusalCommandAndScript, 5, []string{"任务“a”", "二选一"}},
	{"no command", withTask("    enabled: true\n"), apply.RefusalNoCommand, 3, []string{"任务“a”：缺少要运行的命令"}},
	{"an empty command", withTask("    command: []\n"), apply.RefusalEmptyCommand, 4, []string{"task.command：至少要写出程序的绝对路径"}},
	{"a relative program", withTask("    command: [date]\n"), task.RefusalProgramNotAbsolute, 4, []string{"任务“a”：task.command[0]：程序“date”须写成规范的绝对路径", "command -v"}},
	{"a relative working directory", withTask("    script: echo\n    workingDir: tmp\n"), task.RefusalDirNotAbsolute, 5, []string{"task.workingDir：工作目录“tmp”"}},
	{"a shell of none", withTask("    shell: /bin/zsh\n    script: echo\n"), validate.RefusalNotOneOf, 4, []string{"task.shell：“/bin/zsh”", "/bin/sh、/bin/bash"}},
	{"an empty script", withTask("    script: '  '\n"), validate.RefusalRequired, 4, []string{"task.script：缺少"}},
	{"a script of NUL", withTask("    script: \"echo\\0\"\n"), validate.RefusalNULByte, 4, []string{"task.script：含有 NUL 字节"}},
	{"a script too long", withTask("    script: " + strings.Repeat("x", task.MaxScriptLen+1) + "\n"), validate.RefusalTooLong, 4, []string{"task.script：过长", "131072"}},
	{"a command too long to start", withTask("    command: [/bin/echo" + strings.Repeat(", "+strings.Repeat("x", 30000), 20) + "]\n"), validate.RefusalTooLong, 3, []string{"task.command：过长", "524288"}},
	{"a timeout of no unit", withTask("    script: echo\n    timeout: 30\n"), validate.RefusalNotDuration, 5, []string{"task.timeout：“30”无效", "1ms 到 365d"}},
	{"a timeout of zero", withTask("    script: echo\n    timeout: 0s\n"), validate.RefusalNotDuration, 5, []string{"task.timeout：“0s”无效"}},
	{"a timeout over a year", withTask("    script: echo\n    timeout: 9000h\n"), validate.RefusalNotDuration, 5, []string{"task.timeout：“9000h”无效", "365d"}},
	{"a kill grace over 10m", withTask("    script: echo\n    killGrace: 11m\n"), validate.RefusalNotDuration, 5, []string{"task.killGrace：“11m”无效", "1ms 到 10m"}},
	{"a kill grace of words", withTask("    script: echo\n    killGrace: soon\n"), validate.RefusalNotDuration, 5, []string{"task.killGrace：“soon”无效"}},
	{"an environment of a list", withTask("    script: echo\n    env: [A]\n"), apply.RefusalNotMapping, 5, []string{"task.env：必须是映射"}},
	{"an environment name of a digit", withTask("    script: echo\n    env:\n      1A: x\n"), task.RefusalEnvName, 6, []string{"环境变量名“1A”无效"}},
	{"a reserved environment name", withTask("    script: echo\n    env:\n      QL_X: x\n"), task.RefusalEnvReserved, 6, []string{"环境变量名“QL_X”是保留的"}},
	{"a secret reference of capitals", withTask("    script: echo\n    env:\n      A: {secret: Bad Ref}\n"), task.RefusalSecretRef, 6, []string{"task.env.A：密钥名称“Bad Ref”无效"}},
	{"a secret of another project", withTask("    script: echo\n    env:\n      A: {secret: beta/token}\n"), task.RefusalSecretOfAnotherProject, 3,
		[]string{"密钥“beta/token”属于项目“beta”", "项目“demo”不能引用", "demo/名称"}},
	{"an environment mapping of no secret", withTask("    script: echo\n    env:\n      A: {}\n"), apply.RefusalEnvMapping, 6, []string{"task.env.A：写成映射时只能是 {secret: 密钥名称}"}},
	{"an environment name twice", withTask("    script: echo\n    env:\n      A: x\n      A: y\n"), validate.RefusalGivenTwice, 6, []string{"“A”出现了两次"}},
	{"too many environment entries", withTask("    script: echo\n    env: {" + manyPairs("E", task.MaxEnv+1) + "}\n"), validate.RefusalTooMany, 5, []string{"task.env：共 257 项", "256 项"}},
	{"a label key of capitals", withTask("    script: echo\n    labels:\n      Bad Key: x\n"), task.RefusalLabelKey, 6, []string{"task.labels：标签键“Bad Key”无效"}},
	{"a user of a space", withTask("    script: echo\n    runAs: {user: 'bad user'}\n"), task.RefusalAccount, 5, []string{"task.runAs.user：“bad user”"}},
	{"runAs without a user", withTask("    script: echo\n    runAs: {group: ops}\n"), validate.RefusalRequired, 5, []string{"task.runAs.user：缺少"}},
	{"retry without maxAttempts", withTask("    script: echo\n    retry: {backoff: 10s}\n"), validate.RefusalRequired, 5, []string{"task.retry.maxAttempts：缺少"}},
	{"maxAttempts over 100", withTask("    script: echo\n    retry: {maxAttempts: 101}\n"), validate.RefusalOutOfRange, 5, []string{"task.retry.maxAttempts：“101”无效", "1 到 100 之间的整数"}},
	{"maxAttempts in words", withTask("    script: echo\n    retry: {maxAttempts: three}\n"), validate.RefusalOutOfRange, 5, []string{"“three”无效"}},
	{"a backoff over a day", withTask("    script: echo\n    retry: {maxAttempts: 3, backoff: 2d}\n"), validate.RefusalNotDuration, 5, []string{"task.retry.backoff：“2d”无效", "0s 到 24h", "2h 或 1d。"}},
	{"retry on nothing", withTask("    script: echo\n    retry: {maxAttempts: 3, on: []}\n"), apply.RefusalRetryOn, 5, []string{"task.retry.on：必须是由 failed、lost、timed_out 中的若干项组成的列表"}},
	{"retry on an outcome of none", withTask("    script: echo\n    retry: {maxAttempts: 3, on: [crashed]}\n"), validate.RefusalNotOneOf, 5, []string{"task.retry.on：“crashed”"}},
	{"retry on one outcome twice", withTask("    script: echo\n    retry: {maxAttempts: 3, on: [lost, lost]}\n"), validate.RefusalGivenTwice, 5, []string{"task.retry.on：“lost”出现了两次"}},
	{"a placement without labels", withTask("    script: echo\n    placement: {}\n"), validate.RefusalRequired, 5, []string{"task.placement.labels：缺少"}},
	{"a placement label value of a space", withTask("    script: echo\n    placement: {labels: {region: 'e u'}}\n"), task.RefusalWorkerLabelValue, 5, []string{"task.placement.labels.region：标签值“e u”无效"}},
	{"a task defined twice", withTask("    script: echo\n  - name: a\n    script: echo\n"), apply.RefusalDefinedTwice, 5, []string{"任务“a”定义了两次"}},
	{"a trigger defined twice", withCron("0 * * * *", "UTC") + "  - name: t\n    task: a\n    cron: '0 * * * *'\n    timezone: UTC\n", apply.RefusalDefinedTwice, 10, []string{"触发器“t”定义了两次"}},
	{"a trigger of a task not in the file", defsTask + "triggers:\n  - name: t\n    task: nope\n    cron: '0 * * * *'\n    timezone: UTC\n", apply.RefusalUnknownTask, 6, []string{"触发器“t”", "task“nope”不是本文件中定义的任务"}},
	{"an enabled trigger of a disabled task", "project: demo\ntasks:\n  - name: a\n    script: echo\n    enabled: false\ntriggers:\n  - name: t\n    task: a\n    cron: '0 * * * *'\n    timezone: UTC\n",
		apply.RefusalTriggerOfDisabledTask, 7, []string{"触发器“t”已启用", "任务“a”已停用"}},
	{"a minute of 61", withCron("61 * * * *", "UTC"), cron.RefusalField, 8, []string{"cron 表达式的分钟字段“61”无效", "0-59"}},
	{"a weekday of 7", withCron("0 3 * * 7", "UTC"), cron.RefusalField, 8, []string{"星期字段“7”", "0-6, SUN-SAT"}},
	{"seven fields", withCron("0 0 3 * * * 2026", "UTC"), cron.RefusalFieldCount, 8, []string{"这里有 7 个"}},
	{"an empty expression", withCron("", "UTC"), cron.RefusalEmpty, 8, []string{"cron 表达式是空的"}},
	{"a macro", withCron("@daily", "UTC"), cron.RefusalMacro, 8, []string{"不支持宏 @daily", "“0 0 * * *”"}},
	{"a macro of none", withCron("@fortnightly", "UTC"), cron.RefusalUnknownMacro, 8, []string{"不支持宏 @fortnightly"}},
	{"an interval", withCron("@every 5m", "UTC"), cron.RefusalEvery, 8, []string{"@every", "请改写为“*/5 * * * *”"}},
	{"an interval no expression matches", withCron("@every 90m", "UTC"), cron.RefusalEveryNone, 8, []string{"没有 cron 表达式能每 90m 触发一次"}},
	{"a startup trigger", withCron("@reboot", "UTC"), cron.RefusalReboot, 8, []string{"@reboot", "QingLong 没有在机器或服务器启动时触发的触发器"}},
	{"a zone prefix", withCron("CRON_TZ=Asia/Shanghai 0 3 * * *", "UTC"), cron.RefusalTimezonePrefix, 8, []string{"“Asia/Shanghai”写在单独的 timezone 字段中", "“0 3 * * *”"}},
	{"a last day", withCron("0 3 L * *", "UTC"), cron.RefusalUnsupported, 8, []string{"日字段“L”", "不支持 L、W 和 #"}},
	{"a word as a month", withCron("0 3 * FOO *", "UTC"), cron.RefusalValue, 8, []string{"月字段“FOO”：“FOO”不是该字段的取值", "JAN-DEC"}},
	{"a character of none", withCron("0 3 % * *", "UTC"), cron.RefusalCharacter, 8, []string{"日字段“%”", "“%”", "1-31"}},
	{"an empty list item", withCron("0 3 1,,2 * *", "UTC"), cron.RefusalEmptyItem, 8, []string{"日字段“1,,2”中有空的列表项"}},
	{"a range without its end", withCron("5- * * * *", "UTC"), cron.RefusalIncomplete, 8, []string{"分钟字段“5-”：“5-”缺少数字"}},
	{"a star in a range", withCron("0 3 *-5 * *", "UTC"), cron.RefusalStarInRange, 8, []string{"“*-5”不能作为范围的一部分"}},
	{"a step as wide as its field", withCron("*/90 * * * *", "UTC"), cron.RefusalStep, 8, []string{"分钟字段“*/90”", "步长 90", "每小时一次"}},
	{"a date that never comes", withCron("0 0 30 2 *", "UTC"), trigger.RefusalNoOccurrence, 6, []string{"触发器“t”：", "“0 0 30 2 *”在未来几年内都不会触发"}},
	{"a zone of none", withCron("0 3 * * *", "Mars/Olympus"), cron.RefusalTimezoneUnknown, 9, []string{"触发器“t”：", "未知的 IANA 时区“Mars/Olympus”", "区分大小写"}},
	{"a zone in small letters", withCron("0 3 * * *", "asia/shanghai"), cron.RefusalTimezoneCase, 9, []string{"未知的 IANA 时区“asia/shanghai”", "是否应写作“Asia/Shanghai”"}},
	{"an empty zone", withCron("0 3 * * *", "''"), cron.RefusalTimezoneMissing, 9, []string{"缺少时区"}},
	{"the host's zone", withCron("0 3 * * *", "Local"), cron.RefusalTimezoneLocal, 9, []string{"“Local”"}},
	{"a misfire of none", withCron("0 * * * *", "UTC") + "    misfire: replay\n", validate.RefusalNotOneOf, 10, []string{"触发器“t”：trigger.misfire：“replay”", "skip、fire_once"}},
	{"an overlap of none", withCron("0 * * * *", "UTC") + "    overlap: never\n", validate.RefusalNotOneOf, 10, []string{"trigger.overlap：“never”", "queue_one"}},
	{"a jitter over an hour", withCron("0 * * * *", "UTC") + "    jitter: 2h\n", validate.RefusalNotDuration, 10, []string{"触发器“t”：trigger.jitter：“2h”无效", "0s 到 1h"}},
	{"a catch-up window over a leap year", withCron("0 * * * *", "UTC") + "    catchUpWindow: 400d\n", validate.RefusalNotDuration, 10, []string{"trigger.catchUpWindow：“400d”", "366d"}},
	{"a start of words", withCron("0 * * * *", "UTC") + "    startAt: tomorrow\n", apply.RefusalNotInstant, 10, []string{"trigger.startAt：“tomorrow”不是 RFC 3339 时间"}},
	{"an end before the start", withCron("0 * * * *", "UTC") + "    startAt: 2026-12-01T00:00:00Z\n    endAt: 2026-11-01T00:00:00Z\n", trigger.RefusalEndNotAfterStart, 11, []string{"结束时间必须晚于 startAt"}},
	{"a catch-up window under skip", withCron("0 * * * *", "UTC") + "    misfire: skip\n    catchUpWindow: 10m\n", trigger.RefusalCatchUpNotFireOnce, 11, []string{"misfire: skip"}},
	{"a rule of a task of none", withNotifications("  channels:\n    ops: {type: webhook, url: 'https://hooks.example/x'}\n  rules:\n    - {on: succeeded, tasks: [chekin], channel: ops}\n"),
		apply.RefusalRuleScopeUnknown, 0, []string{"notifications.rules[0].tasks：“chekin”既不是本文件中的任务，也不是项目“demo”已有的任务", "须先应用那个文件"}},
	{"notifications without rules", withNotifications("  channels: {}\n"), validate.RefusalRequired, 6, []string{"notifications.rules：缺少"}},
	{"a channel of no type", withNotifications("  channels:\n    ops: {url: 'https://hooks.example/x'}\n  rules: []\n"), validate.RefusalRequired, 7, []string{"notifications.channels.ops.type：缺少"}},
	{"a channel type of none", withNotifications("  channels:\n    ops: {type: pager, url: 'https://hooks.example/x'}\n  rules: []\n"), validate.RefusalNotOneOf, 7, []string{"notifications.channels.ops.type：“pager”", "webhook"}},
	{"a channel of no url", withNotifications("  channels:\n    ops: {type: webhook}\n  rules: []\n"), notify.RefusalChannelNoURL, 7, []string{"缺少 url"}},
	{"a channel of a url and its secret", withNotifications("  channels:\n    ops: {type: webhook, url: 'https://hooks.example/x', urlSecret: hook}\n  rules: []\n"), notify.RefusalChannelURLAndSecret, 7, []string{"二选一"}},
	{"a channel url of ftp", withNotifications("  channels:\n    ops: {type: webhook, url: 'ftp://hooks.example'}\n  rules: []\n"), notify.RefusalChannelURL, 7, []string{"notifications.channels.ops.url：须是以 http:// 或 https:// 开头"}},
	{"a secret name of a space", withNotifications("  channels:\n    ops: {type: webhook, urlSecret: 'a b'}\n  rules: []\n"), notify.RefusalSecretName, 7, []string{"“a b”不是有效的密钥名称"}},
	{"a signing secret on slack", withNotifications("  channels:\n    ops: {type: slack, urlSecret: hook, signingSecret: sig}\n  rules: []\n"), notify.RefusalSigningNotWebhook, 7, []string{"signingSecret：只有 webhook"}},
	{"a token secret on slack", withNotifications("  channels:\n    ops: {type: slack, urlSecret: hook, tokenSecret: tok}\n  rules: []\n"), notify.RefusalTokenNotWebhook, 7, []string{"tokenSecret：只有 webhook、ntfy、gotify"}},
	{"gotify without its token", withNotifications("  channels:\n    ops: {type: gotify, url: 'https://gotify.example'}\n  rules: []\n"), notify.RefusalTokenRequired, 7, []string{"gotify 渠道必须写 tokenSecret"}},
	{"a serverchan url written", withNotifications("  channels:\n    ops: {type: serverchan, url: 'https://sctapi.ftqq.com/SCTx.send'}\n  rules: []\n"), notify.RefusalServerChanKey, 7, []string{"Server酱的 URL 中带有 SendKey", "tokenSecret"}},
	{"an email with a url", withNotifications("  channels:\n    ops: {type: email, url: 'https://mail.example', host: smtp.example.com, from: ql@example.com, to: ops@example.com}\n  rules: []\n"), notify.RefusalMailURL, 7, []string{"notifications.channels.ops.url：email 渠道通过 SMTP 发往 host"}},
	{"a host on slack", withNotifications("  channels:\n    ops: {type: slack, urlSecret: hook, host: smtp.example.com}\n  rules: []\n"), notify.RefusalMailFieldNotEmail, 7, []string{"notifications.channels.ops.host：只有 email 渠道有这个字段"}},
	{"an email host with its port", withNotifications("  channels:\n    ops: {type: email, host: 'smtp.qq.com:465', from: ql@example.com, to: ops@example.com}\n  rules: []\n"), notify.RefusalMailHost, 7, []string{"“smtp.qq.com:465”不是主机名或 IP 地址", "port"}},
	{"port 465 with starttls", withNotifications("  channels:\n    ops: {type: email, host: smtp.qq.com, port: 465, tls: starttls, from: ql@example.com, to: ops@example.com}\n  rules: []\n"), notify.RefusalMailPortTLS, 7, []string{"465 端口从第一个字节起就使用 TLS"}},
	{"an email to no address", withNotifications("  channels:\n    ops: {type: email, host: smtp.qq.com, from: ql@example.com, to: [运维组]}\n  rules: []\n"), notify.RefusalMailAddress, 7, []string{"notifications.channels.ops.to[0]：“运维组”不是有效的邮件地址"}},
	{"an email login without its password", withNotifications("  channels:\n    ops: {type: email, host: smtp.qq.com, from: ql@example.com, to: ops@example.com, username: ql}\n  rules: []\n"), notify.RefusalMailLogin, 7, []string{"passwordSecret：username 和 passwordSecret", "同时写出"}},
	{"an email login in plain text", withNotifications("  channels:\n    ops: {type: email, host: smtp.qq.com, tls: none, from: ql@example.com, to: ops@example.com, username: ql, passwordSecret: pw}\n  rules: []\n"), notify.RefusalMailPlainLogin, 7, []string{"username：tls: none 的渠道不能登录"}},
	{"an email login on two lines", withNotifications("  channels:\n    ops: {type: email, host: smtp.qq.com, from: ql@example.com, to: ops@example.com, username: \"ql\\r\\nRSET\", passwordSecret: pw}\n  rules: []\n"), notify.RefusalMailUsernameLine, 7, []string{"username：含有换行符"}},
	{"telegram without its chat", withNotifications("  channels:\n    ops: {type: telegram, urlSecret: bot}\n  rules: []\n"), notify.RefusalChatIDRequired, 7, []string{"chatId"}},
	{"a chat on slack", withNotifications("  channels:\n    ops: {type: slack, urlSecret: hook, chatId: '@x'}\n  rules: []\n"), notify.RefusalChatIDNotTelegram, 7, []string{"只有 telegram 渠道有 chatId"}},
	{"a chat of a space", withNotifications("  channels:\n    ops: {type: telegram, urlSecret: bot, chatId: 'a b'}\n  rules: []\n"), notify.RefusalChatID, 7, []string{"“a b”不是有效的 chat id"}},
	{"a channel given twice", withNotifications("  channels:\n    ops: {type: webhook, url: 'https://hooks.example/x'}\n    ops: {type: webhook, url: 'https://hooks.example/y'}\n  rules: []\n"), validate.RefusalGivenTwice, 8, []string{"notifications.channels：“ops”出现了两次"}},
	{"a rule of an event of none", withNotifications(webhook + "  rules:\n    - {on: exploded, channel: ops}\n"), validate.RefusalNotOneOf, 9, []string{"notifications.rules[0].on：“exploded”"}},
	{"a rule of a channel not defined", withNotifications(webhook + "  rules:\n    - {on: failed, channel: pager}\n"), notify.RefusalChannelUndefined, 9, []string{"渠道“pager”没有在 notifications.channels 中定义"}},
	{"a rule without its channel", withNotifications(webhook + "  rules:\n    - {on: failed}\n"), validate.RefusalRequired, 9, []string{"notifications.rules[0].channel：缺少"}},
	{"a rule of no event", withNotifications(webhook + "  rules:\n    - {channel: ops}\n"), apply.RefusalRuleNoEvent, 9, []string{"缺少触发条件"}},
	{"a rule of an event and a streak", withNotifications(webhook + "  rules:\n    - {on: failed, consecutive_failures: 3, channel: ops}\n"), apply.RefusalRuleEventAndStreak, 9, []string{"二选一"}},
	{"a streak as an event", withNotifications(webhook + "  rules:\n    - {on: consecutive_failures, channel: ops}\n"), apply.RefusalRuleStreakAsEvent, 9, []string{"请写 consecutive_failures: N"}},
	{"a streak of zero", withNotifications(webhook + "  rules:\n    - {consecutive_failures: 0, channel: ops}\n"), validate.RefusalOutOfRange, 9, []string{"consecutive_failures：“0”无效", "1 到 1000"}},
	{"reasons on a failed rule", withNotifications(webhook + "  rules:\n    - {on: failed, reasons: [misfire], channel: ops}\n"), notify.RefusalReasonsNotSkipped, 9, []string{"请删去 reasons"}},
	{"a rule given twice", withNotifications(webhook + "  rules:\n    - {on: failed, channel: ops}\n    - {on: failed, channel: ops}\n"), notify.RefusalRuleTwice, 10, []string{"同样的规则写了两次"}},
}

// manyPairs is n YAML mapping pairs KEY0: x, KEY1: x…
func manyPairs(key string, n int) string {
	pairs := make([]string, n)
	for i := range pairs {
		pairs[i] = key + strings.Repeat("X", i/26) + string(rune('A'+i%26)) + ": x"
	}
	return strings.Join(pairs, ", ")
}

// refusedDefinitions is what the definitions page is told of yaml: the
// error of reading, checking or planning it, as the page does, against
// held (nil: an empty database).
func refusedDefinitions(t *testing.T, yaml string, held catalog.Reader) error {
	t.Helper()
	doc, err := apply.Read("x.yaml", strings.NewReader(yaml))
	if err != nil {
		return err
	}
	svc := catalog.Service{Executor: task.LocalProcess, NowMs: func() int64 { return 1_790_000_000_000 }}
	_, err = apply.Plan(context.Background(), svc, held, doc, ids.New)
	return err
}

// Every mistake of a definitions file reads whole in Chinese, at its line:
// the sentence of its reason with each of its params filled in (the value,
// the field, the range or set), saying what is wrong and what to write,
// never quoting a parser's English words (the YAML decoder's, the cron
// grammar's), which the English page shows.
func TestADefinitionsFilesMistakeReadsInChineseAtItsLine(t *testing.T) {
	t.Parallel()
	hole := regexp.MustCompile(`\{[a-z]+\}`)
	for _, f := range brokenFiles {
		err := refusedDefinitions(t, f.yaml, nil)
		if err == nil {
			t.Errorf("%s: accepted", f.what)
			continue
		}
		checkChinese(t, f.what, err, f.reason, f.line, f.zh, hole)
	}
}

// A file of one mistake is refused for that mistake alone: now that every
// independent mistake of a file is reported, none that its other parts
// would seem to have with the broken part left out (a trigger naming a
// task whose entry is broken, a field its misspelling leaves missing) is
// reported with it.
func TestAFileOfOneMistakeIsRefusedForItAlone(t *testing.T) {
	t.Parallel()
	for _, f := range brokenFiles {
		err := refusedDefinitions(t, f.yaml, nil)
		if list, more := apply.Errors(err); f.line != 0 && (len(list) != 1 || more != 0) {
			t.Errorf("%s: %d errors and %d more, want the one:\n%v", f.what, len(list), more, err)
		}
	}
}

func checkChinese(t *testing.T, what string, err error, reason qlerror.Reason, line int, want []string, hole *regexp.Regexp) {
	t.Helper()
	if got := qlerror.ReasonOf(err); got != reason {
		t.Errorf("%s: reason %q, want %q (%v)", what, got, reason, err)
		return
	}
	if at, _, _, _ := apply.Locate(err); at != line {
		t.Errorf("%s: at line %d, want %d (%v)", what, at, line, err)
	}
	// As the definitions page words it (fileErrors): the first error at
	// its place, or the file's one error whole.
	list, _ := apply.Errors(err)
	var s string
	var ok bool
	if len(list) > 0 {
		s, ok = locatedSentence("zh", err, list[0])
	} else {
		s, ok = sentence("zh", err)
	}
	if !ok || hole.MatchString(s) {
		t.Errorf("%s: no whole Chinese sentence for reason %q with params %v: %q", what, reason, qlerror.ParamsOf(err), s)
		return
	}
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s: the Chinese sentence %q does not say %q (English: %v)", what, s, w, err)
		}
	}
	params := qlerror.ParamsOf(err)
	if len(list) > 0 {
		params = qlerror.ParamsOf(list[0])
	}
	if d := params["detail"]; d != "" && strings.Contains(s, d) {
		t.Errorf("%s: the Chinese sentence %q quotes the parser's English %q", what, s, d)
	}
}

// heldProject is a database holding project demo (with status) and its
// trigger t, bound to another task than the file's.
type heldProject struct{ status project.Status }

func (h heldProject) ProjectByName(context.Context, string) (project.Project, error) {
	return project.Project{ID: ids.New(), Name: "demo", Status: h.status}, nil
}

func (heldProject) TasksByName(context.Context, string, []string) (map[string]task.Revision, error) {
	return map[string]task.Revision{}, nil
}

func (heldProject) TriggersByName(context.Context, string, []string) (map[string]trigger.Revision, error) {
	return map[string]trigger.Revision{"t": {TriggerID: ids.New(), TaskID: ids.New(), Revision: 1}}, nil
}

func (heldProject) TitlesOf(context.Context, string) (catalog.Titles, error) {
	return catalog.Titles{}, nil
}

func (heldProject) TriggerNamesOfTasks(context.Context, string, []string) ([]string, error) {
	return nil, nil
}

// What a file is refused for by what the database holds reads in Chinese
// too: a trigger moved to another task, a project archived.
func TestAFilesClashWithTheDatabaseReadsInChineseAtItsLine(t *testing.T) {
	t.Parallel()
	hole := regexp.MustCompile(`\{[a-z]+\}`)
	err := refusedDefinitions(t, withCron("0 * * * *", "UTC"), heldProject{status: project.Active})
	checkChinese(t, "a trigger bound to another task", err, apply.RefusalTriggerRebound, 6, []string{"触发器“t”已绑定到另一个任务"}, hole)
	err = refusedDefinitions(t, "project: demo\nstatus: archived\n"+strings.TrimPrefix(defsTask, "project: demo\n"), heldProject{status: project.Archived})
	checkChinese(t, "a task of an archived project", err, catalog.RefusalProjectArchived, 4, []string{"该项目已归档"}, hole)
	err = refusedDefinitions(t, "project: demo\nstatus: archived\n"+strings.TrimPrefix(defsTask, "project: demo\n"), heldProject{status: project.Active})
	checkChinese(t, "a file archiving its project and creating a task", err, apply.RefusalArchivingWithChanges, 4, []string{"本文件将项目“demo”归档", "“a”"}, hole)
}

// lostStore is a database whose connection is lost under every publish:
// the store cannot tell whether it committed.
type lostStore struct{ catalog.Store }

func (lostStore) Publish(context.Context, func(catalog.Tx) error) error {
	return qlerror.New(qlerror.Unavailable, "the connection to the database was lost")
}

// A valid file whose publish the store cannot see end reads in Chinese
// too: the outcome is unknown, and applying the file again converges.
func TestAnApplyOfUnknownOutcomeReadsInChinese(t *testing.T) {
	t.Parallel()
	doc, err := apply.Read("x.yaml", strings.NewReader(defsTask))
	if err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: lostStore{}, Executor: task.LocalProcess, NowMs: func() int64 { return 1_790_000_000_000 }}
	_, err = apply.Audited(context.Background(), svc, doc, ids.New, "olivia")
	checkChinese(t, "an apply whose outcome is unknown", err, apply.RefusalOutcomeUnknown, 0, []string{"无法确认这次应用是否已写入", "请再次应用同一文件"}, regexp.MustCompile(`\{[a-z]+\}`))
}

// notReachedByAFile are the reasons of the definitions packages that no
// file of brokenFiles can give, each with why.
var notReachedByAFile = map[qlerror.Reason]string{
	validate.RefusalNotUTF8:            "the YAML decoder reads only UTF-8 and its escapes yield UTF-8 (the check is for other callers)",
	cron.RefusalExpression:             "robfig refusing an expression whose every field it accepts alone, which its grammar never does",
	apply.RefusalTriggerRebound:        "needs a database holding the trigger (TestAFilesClashWithTheDatabaseReadsInChineseAtItsLine)",
	apply.RefusalArchivingWithChanges:  "needs a database holding the project active (TestAFilesClashWithTheDatabaseReadsInChineseAtItsLine)",
	catalog.RefusalProjectMissing:      "a missing project is created by a file; the definitions page's view of one is a server test",
	apply.RefusalOutcomeUnknown:        "the write of a valid file failing, not the file (TestAnApplyOfUnknownOutcomeReadsInChinese)",
	apply.RefusalSpecChanged:           "an apply over a project revision (If-Match, `ql apply --if-match`), which the definitions page does not send",
	apply.RefusalProjectExists:         "an apply only creating its project (If-None-Match: *), which the definitions page does not send",
	apply.RefusalCreateOnlyWouldChange: "an apply only creating objects (`ql apply --create-only`, ?createOnly=true), which the definitions page does not send",
	apply.RefusalWriteConflict:         "the write of a valid file losing to another writer, not the file",
	apply.RefusalNameTaken:             "the New task form's, not a file's (server: TestTheNewTaskFormRefusesANameItsProjectHasInThePagesLanguage)",
	// The edit forms', not a file's (server: TestTheEditTaskFormRefusesATaskChangedSinceItWasShown,
	// TestTheEditTaskFormSendsATaskItCannotShowToItsDefinitionsFile; storetest: WhatAnEditFormCannotShowIsRefused).
	apply.RefusalNoSuchEntry:    "an edit form of a task or trigger the project lacks",
	apply.RefusalChangedSince:   "an edit form sent after its entry was published again",
	apply.RefusalArgvTask:       "an Edit task form of a task that runs a command",
	apply.RefusalScriptNotShown: "an Edit task form of a script a text box cannot hold",
	apply.RefusalEnvNotShown:    "an Edit task form of an env value a text box cannot hold",
	apply.RefusalPinsOlderTask:  "an Edit schedule form of a trigger left on an older task revision",
	// The Edit environment form's (TestTheProjectEnvFormDoesNotUndoAChangeMadeMeanwhile,
	// TestTheProjectEnvFormSendsAValueItCannotKeepToTheFile).
	apply.RefusalProjectChangedSince: "an Edit environment form sent after its project was published again",
	apply.RefusalProjectEnvNotShown:  "an Edit environment form of an env value a text box cannot hold",
	// A run now's or a backfill's of a trigger its task left behind
	// (server: TestATriggerLeftOnAnOldRevisionOfItsTaskIsRefusedSayingHowToRunItAgain).
	apply.RefusalTaskDisabled:    "a manual Run of a trigger whose task a file disabled",
	apply.RefusalTaskRepublished: "a manual Run of a trigger a task was published again without",
	// The outbox's refusals, of a listing and a retry: no file's (server:
	// TestAConsoleNotificationRefusalIsShownInThePagesLanguage).
	notify.RefusalNotANotificationID:  "a retry's id",
	notify.RefusalNotificationMissing: "a retry of a notification that does not exist",
	notify.RefusalNotificationNotDead: "a retry of a notification that is not dead",
	notify.RefusalNotificationState:   "a listing's state filter",
	// A channel's test's: of a channel name given, never a file's.
	apply.RefusalChannelMissing: "a test message to a channel the project lacks",
	// A project's deletion's: of the stored project, never of a file
	// (storetest: RunProjectDelete).
	project.RefusalNotArchived:          "a deletion of a project still active",
	project.RefusalUnfinishedRuns:       "a deletion of a project with Runs not finished",
	project.RefusalBoundTokens:          "a deletion of a project a live token is bound to",
	project.RefusalConfirmationRequired: "a deletion asked for with nobody to confirm it",
}

// Each reason a definitions file can be refused for is given by a file of
// brokenFiles, so its sentence has been read whole in Chinese.
func TestEveryDefinitionsReasonIsReadInChineseByABrokenFile(t *testing.T) {
	t.Parallel()
	given := map[qlerror.Reason]bool{}
	for _, f := range brokenFiles {
		given[f.reason] = true
	}
	for path, r := range reasonsDeclaredInPackages(t, []string{"../apply", "../cron", "../task", "../trigger", "../notify", "../project", "../validate"}, "qlerror.Reason") {
		if !given[r] && notReachedByAFile[r] == "" {
			t.Errorf("%s: reason %q is given by no file of brokenFiles", path, r)
		}
	}
}
