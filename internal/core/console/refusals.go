package console

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/databackup"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// durationFormsZh is validate.DurationFormsIn in Chinese: every refusal
// of a user-given duration ends with it, as the English does with that,
// its examples those of the refusal's range ({examples}, which sentence
// derives from the refusal's min and max).
const durationFormsZh = "写数字加单位（ms、s、m、h 或 d），如 {examples}。"

// The reasons of the console's own refusals: a server whose store cannot
// do what a form asks, and a form value that cannot be read.
const (
	refusalCannotPause        qlerror.Reason = "console_cannot_pause"
	refusalCannotRunNow       qlerror.Reason = "console_cannot_run_now"
	refusalCannotCancel       qlerror.Reason = "console_cannot_cancel"
	refusalCannotRerun        qlerror.Reason = "console_cannot_rerun"
	refusalCannotBackfill     qlerror.Reason = "console_cannot_backfill"
	refusalBackfillBounds     qlerror.Reason = "console_backfill_bounds"
	refusalCannotEnable       qlerror.Reason = "console_cannot_enable"
	refusalCannotManageTokens qlerror.Reason = "console_cannot_manage_tokens"
	refusalCannotPublish      qlerror.Reason = "console_cannot_publish"
	refusalNotAProjectName    qlerror.Reason = "console_not_a_project_name"
	refusalNoSuchProject      qlerror.Reason = "console_no_such_project"
	refusalNoSuchTrigger      qlerror.Reason = "console_no_such_trigger"
	refusalTriggerAmbiguous   qlerror.Reason = "console_trigger_ambiguous"
	refusalTriggerElsewhere   qlerror.Reason = "console_trigger_elsewhere"
	refusalNoProjectID        qlerror.Reason = "console_no_project_id"
	refusalUnreadableFile     qlerror.Reason = "console_file_unreadable"
	refusalNotATime           qlerror.Reason = "console_not_a_time"
	refusalNotAnAttempt       qlerror.Reason = "console_not_an_attempt"
	refusalNoBatchAction      qlerror.Reason = "console_no_batch_action"
	// refusalEnableArchived and refusalDisableArchived are the store's
	// refusal of an enable or disable in an archived project
	// (archivedRefusal).
	refusalEnableArchived  qlerror.Reason = "console_enable_archived"
	refusalDisableArchived qlerror.Reason = "console_disable_archived"
	// refusalTriggerDisabled is the store's refusal of a disabled
	// trigger's run now or backfill, worded with the command that enables
	// it as this console names it: name, enable.
	refusalTriggerDisabled qlerror.Reason = "console_trigger_disabled"
	// refusalProjectPauseUnknown and refusalProjectPauseArchived are the
	// store's refusal of a project pause or resume of an unknown or an
	// archived project (projectPauseRefusal).
	refusalProjectPauseUnknown  qlerror.Reason = "console_project_pause_unknown"
	refusalProjectPauseArchived qlerror.Reason = "console_project_pause_archived"
)

// refusals say, in the languages other than English, the refusals whose
// reason the console knows. An English page shows the error's own sentence:
// it is the reference these translate, and it names the ids and commands
// that the page around the message already shows.
var refusals = map[string]map[qlerror.Reason]string{
	"zh": union(refusalsZH, definitionsRefusalsZH, notificationsRefusalsZH, editRefusalsZH, scriptsRefusalsZH, depsRefusalsZH, qlimportRefusalsZH, twoStepRequiredRefusalsZH),
}

// refusalsZH say in Chinese the refusals of the pages' actions and forms.
var refusalsZH = map[qlerror.Reason]string{ //nolint:gosec // G101: sentences keyed by refusal reasons (some name tokens), no credential
	schedule.RefusalTriggerMissing:      "该触发器不存在（可能已被删除）；触发器列表列出现有的触发器。",
	schedule.RefusalRunMissing:          "该运行不存在（保留策略可能已将其删除）；运行列表列出现有的运行。",
	run.RefusalHandedOver:               "数据目录 {dataDir} 的数据库已移交（`export --with-state`）：它的触发器在应用了该状态的目标上运行，这里不启动服务器，也不排队新的运行；请在目标上操作。要移回，先停止目标的所有服务器，再执行 `ql serve --take-back --data-dir {dataDir}`。",
	schedule.RefusalRunNotFinished:      "该运行尚未结束，只有已结束的运行才能重新运行；请等待它结束，或先取消它。",
	schedule.RefusalProjectArchived:     "该触发器所属的项目已归档：在项目恢复为 active 之前，它的任何运行（包括立即运行、重新运行和回填）都不会进行；要恢复，请在“定义”页面把项目的 status 设为 active 并应用，或在定义文件中设置后执行 `ql apply -f FILE`。",
	catalog.RefusalProjectArchived:      "该项目已归档：要向它发布，请先把它恢复为 active——在“定义”页面打开项目的定义文件，设置 status: active 后应用，或在文件中设置后执行 `ql apply -f FILE`。",
	refusalCannotDeleteProject:          "这个服务器不能删除项目（集群副本的数据库角色不能删除运行）：请用维护角色的 URL 执行 `ql projects delete`。",
	project.RefusalNotArchived:          "项目 {name} 仍处于 active 状态，只有已归档的项目才能删除：请先在它的定义文件中设置 status: archived 并执行 `ql apply -f FILE`，然后再删除。",
	project.RefusalUnfinishedRuns:       "项目 {name} 还有 {runs} 个运行尚未结束（排队、运行中或等待重试），删除会丢失它们的结果：请先取消它们，或等它们结束，然后再删除。",
	project.RefusalBoundTokens:          "有仍然有效的 API 令牌绑定到项目 {name}（{tokens}）：删除后这个名字空出来，以后同名的新项目会被这些令牌操作；请先撤销它们（`ql tokens revoke 名称`），然后再删除。",
	databackup.RefusalBusy:              "此服务器正在做另一份备份（同一时间只做一份）：请等它的下载结束后再试。",
	databackup.RefusalNoSpace:           "{dir} 所在的磁盘只剩 {free} 可用空间，而备份要先在那里复制一份数据库（最多 {need}）：什么也没有复制；请在该磁盘上腾出空间，或在服务器主机上用 `ql backup DIR` 把备份写到另一块磁盘。",
	audit.RefusalNotRecorded:            "{name} 的更改已经完成并保留，但审计记录（{action}）没有写入：请另行记下是谁做的更改，并在下一次更改前修复数据库；服务器日志以代码 audit.not_recorded 记下了操作者。",
	project.RefusalConfirmationRequired: "删除项目 {name} 无法撤销，而标准输入不是终端，无法输入项目名称确认：请加上 --yes（先用 --dry-run 查看会删除什么），或在终端中运行并输入名称。",
	refusalEnableArchived: "无法启用触发器“{trigger}”：它所属的项目已归档，归档项目的触发器保持原样（且都不运行），直到项目恢复为 active；" +
		"要恢复，请在项目的定义文件中设置 status: active 并执行 `ql apply -f FILE`。",
	refusalProjectPauseUnknown:  "没有名为“{name}”的项目（项目名区分大小写），无法暂停或恢复；请从列表中选择一个项目。",
	refusalProjectPauseArchived: "项目“{name}”已归档，它的触发器都不运行，因此不能暂停或恢复；要恢复为 active，请在项目的定义文件中设置 status: active 并应用它（执行 `ql apply -f FILE`，或在“定义”页面应用）。",
	refusalDisableArchived: "无法停用触发器“{trigger}”：它所属的项目已归档，归档项目的触发器保持原样（且都不运行），直到项目恢复为 active；" +
		"要恢复，请在项目的定义文件中设置 status: active 并执行 `ql apply -f FILE`。",
	schedule.RefusalTriggerDisabled: "该触发器（或其任务）已停用，立即运行与回填也不执行；在触发器页面或用 `ql triggers enable 名称` 启用触发器，或在定义文件中设置 enabled: true 并执行 `ql apply -f FILE`。",
	refusalTriggerDisabled:          "触发器“{name}”已停用，立即运行与回填也不执行；在触发器页面或用 `{enable}` 启用它，或在定义文件中设置 enabled: true 并执行 `ql apply -f FILE`。",
	schedule.RefusalRepublishing:    "该触发器正在重新发布，请稍后重试。",
	schedule.RefusalNotPrimary:      "数据库不接受写入（处于恢复中的备库，或 default_transaction_read_only 已开启），已拒绝该操作，什么都没有做：请连接到主库（URL 中列出多个主机时，加上 target_session_attrs=read-write）。",
	schedule.RefusalFeatureNotSupported: "PostgreSQL 以不支持的功能为由拒绝了该语句（SQLSTATE 0A000，feature_not_supported；该服务器不是备库），什么都没有做：" +
		"请确认服务器是受支持的 PostgreSQL（15 至 18），直接连接或经由转发所有语句的代理连接；若是，请连同这一行报告问题。",
	schedule.RefusalRequestIDReused: "请求 ID“{requestId}”已为另一个请求（是否强制运行不同）创建了运行 {run}：重试时请按第一次的方式提交；新的请求请使用新的请求 ID。",
	schedule.RefusalStalePin: "该触发器固定在其任务的较旧修订版上，而不是任务当前的修订版：在它与任务一起重新发布之前，它什么都不运行，立即运行与回填也不执行；" +
		"请应用同时写有该任务和该触发器的定义文件，并启用该任务（执行 `ql apply -f FILE`）。",
	apply.RefusalChannelMissing: "项目“{project}”的通知设置中没有名为“{channel}”的渠道，测试消息没有发送；请使用项目定义文件 notifications.channels 中的渠道名称。",
	apply.RefusalTaskDisabled: "任务“{task}”已停用，因此触发器“{trigger}”什么都不运行，立即运行与回填也不执行；" +
		"任务只能由它的定义文件启用：在文件中为任务“{task}”设置 enabled: true，并与该触发器一起应用（执行 `ql apply -f FILE`，或在“定义”页面应用）。",
	apply.RefusalTaskRepublished: "任务“{task}”已重新发布（修订版 {revision}），但触发器“{trigger}”没有随之发布，仍固定在该任务的修订版 {pinned}：" +
		"在它与任务一起重新发布之前，它什么都不运行，立即运行与回填也不执行；请应用同时写有该任务和该触发器的定义文件（执行 `ql apply -f FILE`，或在“定义”页面应用）。",
	schedule.RefusalSearchTooLong:    "搜索文字过长：{bytes} 字节，最多 {max} 字节（一个汉字占 3 字节）；请只搜索名称、标题或命令中的一部分。",
	schedule.RefusalNotATriggerID:    "这不是触发器 ID：请使用 `ql triggers list -o json` 列出的 triggerId。",
	schedule.RefusalBackfillReversed: "回填窗口的起始时间晚于截止时间；请先填较早的时间。",
	schedule.RefusalBackfillFuture:   "回填窗口不能延伸到未来：回填只为已经到期的发生时刻创建运行；请把截止时间设为现在或更早。",
	schedule.RefusalBackfillCap:      fmt.Sprintf("回填上限须在 1 到 %d 之间。", schedule.MaxBackfill),
	schedule.RefusalBackfillTooMany:  fmt.Sprintf("窗口内的发生时刻超过 %d 个，这是一次回填的上限；请缩小窗口，分几次回填。", backfillMax),
	schedule.RefusalCronUnparsable:   "该触发器存储的 cron 表达式已无法解析；请重新发布该触发器。",
	schedule.RefusalTriggerZoneUnknown: "此服务器不认识该触发器的时区“{zone}”：服务器主机的时区数据库中没有这个时区（触发器由时区数据库较新的服务器发布），" +
		"所以无法算出它的发生时刻，未做任何更改；请在该主机上安装较新的时区数据库（tzdata 软件包），或用 ZONEINFO 指向含有该时区的时区数据库" +
		"（zoneinfo 目录或 zip 文件，设在服务器的环境中并重启服务器，也设在 ql 的环境中），或使用较新版本的服务器（它自带的时区数据在主机缺少时区时使用）{remedy}",
	refusalCannotBackfill:              "此服务器的存储不能回填触发器；请使用 `ql triggers backfill`。",
	refusalBackfillBounds:              "请填写回填窗口的起始和截止时间，写成 2026-11-30T08:00 这样的日期和时间。",
	schedule.RefusalNotARunID:          "这不是运行 ID：请在“运行”页面选择一个运行（命令行中则使用 `ql runs list` 列出的 ID）。",
	schedule.RefusalRequestIDShape:     "请求 ID 只能使用字母、数字、“.”、“_”和“-”，最多 {max} 个字符。",
	run.RefusalAlreadyEnded:            "该运行（或其尝试）已经结束，未做任何更改。",
	run.RefusalNothingToStop:           "该运行还没有可停止的尝试，请稍后重试。",
	schedule.RefusalPauseNoteTooLong:   fmt.Sprintf("备注过长：最多 %d 个字符，请缩短。", schedule.MaxPauseNote),
	schedule.RefusalPauseNoteNotText:   "备注只能是一行纯文本，不能含控制字符或文字方向字符。",
	schedule.RefusalAdoptOverScheduled: "该触发器的调度已在此数据库中准入或跳过过发生时刻，它在这里运行：不能再接续移交来的位置；请在任何服务器或副本在目标数据库上启动之前，带状态应用文件。",
	apitoken.RefusalScope:              "权限范围须是 read、operate 或 admin 之一。",
	apitoken.RefusalExpiry:             "有效期“{value}”无效，须是 {min} 到 {max} 之间的时长：" + durationFormsZh,
	apitoken.RefusalNameTaken:          "已有同名且未吊销的令牌（有效或已过期；过期的令牌在吊销前仍占用其名称）；请先吊销它，或换一个名称。",
	apitoken.RefusalProjectNotInScope:  "此{who}只绑定了项目 {projects}，不能查看或操作其他项目，也不能使用不属于任一项目的功能；请改用绑定了该项目的{who}，或适用于所有项目的{who}。",
	apitoken.RefusalNoSuchToken:        "没有该名称且未吊销的令牌；令牌页列出现有的令牌。",
	validate.RefusalNameMissing:        "请填写{field}。",
	account.RefusalPasswordCommon:      "该密码是最常见的密码之一，猜测密码的人会最先试它；请换一个（几个互不相关的词连成的长密码既难猜又好记）。",
	account.RefusalPasswordHasName:     "该密码包含用户名“{name}”，猜测密码的人会最先试它；请换一个不含用户名的密码。",
	account.RefusalTwoStepCodeWrong:    "这不是身份验证器应用当前的验证码，也不是未使用的恢复码；请检查手机时间，并输入应用此刻显示的验证码。",
	account.RefusalTwoStepCodeReused:   "该验证码已使用过；请等待应用显示下一个验证码再输入。",
	account.RefusalTwoStepOn:           "两步验证已开启；要换到另一个应用，请先关闭它。",
	account.RefusalTwoStepOff:          "两步验证未开启，无需关闭。",
	account.RefusalTwoStepNotBegun:     "此次两步验证设置已不是等待确认的那一个（它在另一个窗口中重新开始，或已完成）；请刷新账号页并扫描其显示的二维码。",
	validate.RefusalNameTooLong:        fmt.Sprintf("{field}过长：最多 %d 个字符。", validate.MaxNameLen),
	validate.RefusalNameShape:          "{field}“{value}”只能使用小写字母、数字、“-”、“_”和“.”，且须以字母或数字开头和结尾。",
	refusalCannotPause:                 "此服务器不能暂停或恢复触发器；请使用 `ql triggers pause|resume`。",
	refusalCannotRunNow:                "此服务器的存储现在不能运行触发器。",
	refusalCannotCancel:                "此服务器不能取消运行；请使用 `ql runs cancel`。",
	refusalCannotRerun:                 "此服务器的存储不能重新运行；请使用 `ql runs rerun`。",
	refusalCannotEnable:                "此服务器不能启用或停用触发器；请使用 `ql triggers enable|disable`（在集群上使用管理员角色）。",
	refusalCannotManageTokens:          "此服务器不能管理 API 令牌（集群副本以运行时角色运行）；请用管理员角色的 URL 执行 `ql tokens`。",
	refusalNoSuchProject:               "没有名为“{name}”的项目（项目名区分大小写）；请从列表中选择一个项目。",
	refusalNoSuchTrigger:               "没有名为“{name}”的触发器（名称区分大小写），也没有标题中含有它的触发器；请在“触发器”页面查看触发器的名称和标题。",
	refusalTriggerTitleAmbiguous:       "多个触发器的标题中含有“{text}”：{triggers}；请写出其中一个的 项目/名称，例如 {example}。",
	refusalTriggerAmbiguous:            "多个项目中都有名为“{name}”的触发器（{projects}）；请写成 项目/名称，例如 {example}。",
	refusalTriggerElsewhere:            "触发器“{trigger}”属于另一个项目，而不是所选的项目；请选择它的项目，或不选项目。",
	refusalNoProjectID:                 "此服务器上没有 ID 为 {id} 的项目（链接可能来自另一台服务器）；请从列表中选择一个项目。",
	refusalNotAProjectName:             "项目“{name}”不存在：这不是有效的项目名称（只能使用小写字母、数字、“-”、“_”和“.”，且须以字母或数字开头和结尾）；请从列表中选择一个项目。",
	refusalCannotPublish:               "此服务器不能发布定义：其数据库角色无此权限（集群副本以运行时角色运行）；请用管理员角色的 URL 执行 `ql apply -f FILE`，或对能发布定义的服务器使用 --api-url。",
	refusalUnreadableFile:              "无法读取上传的文件；请重新选择文件，或把内容粘贴到文本框中。",
	refusalNotATime:                    "时间无法识别：请写成 2026-11-30T08:00 这样的日期和时间。",
	run.RefusalListState:               "“{state}”不是运行的状态；请在筛选的状态列表中选择一个。",
	run.RefusalListNotAnID:             "地址或筛选条件中的{parameter}不是 ID（地址可能被改动或复制不全）：请在筛选框中选择项目，从列表的链接进入，翻页请使用“下一页”链接，或去掉它从第一页看起。",
	run.RefusalListOutOfRange:          "时间窗口须在 1970 年到 10889 年之间。",
	run.RefusalListReversed:            "时间窗口的起始时间不早于截止时间；请先填较早的时间。",
	run.RefusalListNotATime:            "时间无法识别：请写成 2026-11-30T08:00 这样的日期和时间。",
	run.RefusalListNoSuchWorker:        "没有这个名称的执行节点；执行节点页列出了所有执行节点。",
	run.RefusalListNoWorkers:           "此服务器没有执行节点（它自己运行每条命令），没有运行是由该执行节点运行的；请去掉执行节点筛选。",
	refusalNoBatchAction:               "表单要求的“{action}”不是批量操作；请按触发器列表上的按钮之一：立即运行、暂停、恢复、启用或停用。",
	refusalNotAnAttempt:                "不是有效的尝试序号：请使用该运行的尝试表中列出的序号（第一次为 1）。",
	run.RefusalNoAttemptYet:            "该运行还没有尝试：它开始后才有输出；请稍后刷新。",
	run.RefusalNoSuchAttempt:           "该运行没有第 {attempt} 次尝试；它的尝试序号为 {attempts}。",
	hold.RefusalDatabaseLocked:         "另一个进程持有数据库文件 {db} 的写锁；这次写入为此等了 {waited}，用完了它能等的全部时间，因此什么也没有写入（向该文件写入的 ql 命令或备份会持有写锁，开着事务的 sqlite3 命令行也会）；请稍后重试，若反复出现，请找出持有该文件的进程，等它结束或停止它。",
	hold.RefusalDatabaseMoved:          "此服务器现在不接受写入：它运行期间，数据库文件 {db} 被移走、删除或替换，写入将会丢失；请把文件放回 {db} 后重试（服务器会自行恢复），或停止服务器，在文件现在所在的位置启动它，并把它的 -wal 文件以相应的名称移到它旁边。",
	hold.RefusalClockBehindDatabase:    "此服务器现在不接受写入（取消运行除外）：它的时钟比数据库记录的最新时间落后 {behind}（时钟 {clock}，数据库 {newest}），写入所记录的一切都会带上错误的时间；该设备很可能没有带电池的时钟，也还没有从 NTP 取得时间：请检查 NTP 能否连到时间服务器（上行链路、DNS、防火墙），稍后重试；时钟越过该时间后服务器会自行恢复写入，最迟在 {left} 后 --clock-wait 结束、时钟被当作正确时恢复；若要现在就把时钟当作正确的，请用 --clock-wait 0 重启服务器。",
	hold.RefusalDatabaseCorrupt:        "此服务器现在不接受写入：它的数据库文件 {db} 已损坏（SQLite 发现了格式错误的页），写入可能丢失；请停止服务器，运行 `{check}` 查看损坏之处，并从最近的备份恢复（docs/operations.md，“Backup and restore”）。",

	// A token bound to projects may not choose the account a task runs as.
	apitoken.RefusalRunAsNeedsEveryProject: "此令牌只绑定了项目 {projects}，不能发布指定了 runAs 的任务“{task}”（以账户 {runAs} 运行）：命令以哪个账户运行由整台主机决定（以 root 或数据目录的所有者运行的命令能读取每个项目的密钥和数据库）；请去掉 runAs，让任务以服务器的 --run-as 运行，或用不绑定项目的令牌应用该文件。",
}

// errorText is err's message in language l: the table's sentence for its
// reason when l has one, else the error's own words (an English page's, and
// any error whose reason the console does not know).
func errorText(l string, err error) string {
	if s, ok := sentence(l, err); ok {
		return s
	}
	return err.Error()
}

// formErrorText is errorText for an error a form says beside its fields,
// as a sentence: the error's own words started with a capital
// (sentenceStart), as the console's own sentences of a form are.
func formErrorText(l string, err error) string {
	if s, ok := sentence(l, err); ok {
		return s
	}
	return sentenceStart(err.Error())
}

// sentenceStart is s, an error's English, with its first letter a
// capital: a form says it as a sentence, where the CLI's error line goes
// on from "Error: " in Go's lower case. A first word that is a name to
// type as it is (task.timeout, run_id, --flag) is left as it is.
func sentenceStart(s string) string {
	word, _, _ := strings.Cut(s, " ")
	word = strings.TrimRight(word, ":,;")
	if s == "" || s[0] < 'a' || s[0] > 'z' || strings.ContainsAny(word, "._-/`\"") {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// placeholder is a param's place in a sentence: {field}, {value}…
var placeholder = regexp.MustCompile(`\{[a-z]+\}`)

// sentence is the table's sentence for err's reason in language l, its
// placeholders filled with err's params (in l's word for one, where
// paramWords or words has it); ok is false when l has no sentence for the
// reason, or err lacks a param it names: the error's English then says it
// whole rather than a sentence with a hole.
func sentence(l string, err error) (string, bool) {
	// Several refusals at once (an email channel's) are said each in
	// turn, or all in English when one has no sentence.
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		var all []string
		for _, e := range joined.Unwrap() {
			s, ok := sentence(l, e)
			if !ok {
				return "", false
			}
			all = append(all, s)
		}
		return strings.Join(all, " "), true
	}
	s, ok := refusals[l][qlerror.ReasonOf(err)]
	if !ok {
		return "", false
	}
	params := withExamples(qlerror.ParamsOf(err))
	complete := true
	s = placeholder.ReplaceAllStringFunc(s, func(m string) string {
		key := m[1 : len(m)-1]
		v, ok := params[key]
		if !ok {
			complete = false
			return m
		}
		if w, ok := paramWords[l][key+"."+v]; ok {
			// A word may name the refusal's other params, said as
			// they are.
			return placeholder.ReplaceAllStringFunc(w, func(m string) string {
				v, ok := params[m[1:len(m)-1]]
				if !ok {
					complete = false
					return m
				}
				return v
			})
		}
		if w, ok := words[l][key+"."+v]; ok {
			return w
		}
		if key == "allowed" && l == "zh" {
			// The allowed values come as one English list; a Chinese
			// sentence lists with the enumeration comma.
			return strings.ReplaceAll(v, ", ", "、")
		}
		return v
	})
	return s, complete
}

// withExamples is params with the examples of a duration refusal's range
// ({examples}, listed in Chinese, the one language with sentences here),
// when it carries a min and a max that are durations: those of
// validate.DurationFormsIn, which the English sentence shows.
func withExamples(params map[string]string) map[string]string {
	lo, okLo := validate.ParseDuration(params["min"])
	hi, okHi := validate.ParseDuration(params["max"])
	if !okLo || !okHi {
		return params
	}
	ex := validate.DurationExamples(lo, hi)
	out := maps.Clone(params)
	out["examples"] = strings.Join(ex[:len(ex)-1], "、") + " 或 " + ex[len(ex)-1]
	return out
}
