package console

import "fmt"

// words name the values the pages show — states, scopes, the reasons an
// occurrence was passed over, what a definitions file changed, a
// notification's state and the event of its rule, what a trigger's misfire
// and overlap policies do — by kind
// and value, in both languages. Stored values stay English in the URL and
// the API; only the page translates them. A value with no word (a newer
// server's) is shown as it is.
//
//nolint:gosec // G101: the words "token" and "revoked" in labels, not a credential
var words = map[string]map[string]string{
	"en": {
		"run.created": "created", "run.queued": "queued", "run.dispatching": "dispatching", "run.running": "running",
		"run.waiting_approval": "waiting for approval", "run.retry_wait": "waiting to retry", "run.succeeded": "succeeded",
		"run.failed": "failed", "run.cancelled": "cancelled", "run.timed_out": "timed out", "run.lost": "lost",
		"attempt.claimed": "waiting to start", "attempt.starting": "starting", "attempt.running": "running", "attempt.succeeded": "succeeded",
		"attempt.failed": "failed", "attempt.timed_out": "timed out", "attempt.cancelled": "cancelled", "attempt.lost": "lost",
		"attempt.granted": "granted to a worker, not started yet",
		"token.active":    "active", "token.revoked": "revoked", "token.expired": "expired",
		"scope.read": "read", "scope.operate": "operate", "scope.admin": "admin",
		"worker.active": "active", "worker.draining": "draining", "worker.revoked": "revoked",
		"passed.misfire": "later than the grace period (misfire: skip)", "passed.collapsed": "collapsed into the one run its misfire policy admitted for them",
		"passed.collapsed.fire_once":        "collapsed into the run of the oldest missed one (misfire: fire_once)",
		"passed.collapsed.fire_once_window": "collapsed into the run of the oldest missed one inside the catch-up window (misfire: fire_once)",
		"passed.collapsed.skip":             "collapsed into the run of the oldest one still inside the grace period (misfire: skip)",
		"passed.catch_up_window":            "older than the catch-up window", "passed.paused": "paused", "passed.outside_bounds": "outside the start/end bounds",
		"passed.disabled": "disabled", "passed.overlap": "an earlier run was unfinished (overlap policy)", "passed.republished": "its revision was replaced",
		"passed.project_archived": "its project was archived", "passed.clock_went_back": "already run while the clock read later", "passed.restored": "missed before a restore from a backup, not caught up",
		"kind.project": "project", "kind.task": "task", "kind.trigger": "trigger",
		"change.created": "created", "change.updated": "updated", "change.unchanged": "unchanged",
		"origin.run_now": "run now", "origin.rerun": "re-run", "origin.backfill": "backfill",
		"audit.pause": "paused", "audit.resume": "resumed", "audit.enable": "enabled", "audit.disable": "disabled",
		"action.token.created": "token created", "action.token.revoked": "token revoked",
		"action.user.created": "user created", "action.user.disabled": "user disabled", "action.user.enabled": "user enabled", "action.user.deleted": "user deleted",
		"action.user.password_set": "password set", "action.user.password_changed": "own password changed", "action.user.projects_set": "projects set",
		"action.user.two_step_enabled": "two-step sign-in on", "action.user.two_step_disabled": "two-step sign-in off",
		"action.user.two_step_reset": "two-step sign-in reset", "action.user.recovery_code_used": "recovery code used",
		"action.project.paused": "project paused", "action.project.resumed": "project resumed", "action.notification.retried": "notification retried", "action.channel.tested": "channel tested",
		"action.project.archived": "project archived", "action.project.activated": "project activated", "action.project.deleted": "project deleted",
		"action.secret.set": "secret set", "action.secret.deleted": "secret deleted",
		"action.script.saved": "script saved", "action.script.created": "script created", "action.script.uploaded": "script uploaded",
		"action.script.renamed": "script renamed", "action.script.deleted": "script deleted", "action.script.folder_created": "scripts folder created",
		"action.trigger.paused": "trigger paused", "action.trigger.resumed": "trigger resumed", "action.trigger.enabled": "trigger enabled", "action.trigger.disabled": "trigger disabled", "action.backup.downloaded": "backup downloaded",
		"action.subscription.created": "subscription added", "action.subscription.updated": "subscription changed", "action.subscription.deleted": "subscription deleted", "action.subscription.pulled": "subscription pulled",
		"action.dependency.added": "dependency added", "action.dependency.installed": "dependency installed", "action.dependency.removed": "dependency removed", "action.dependency.mirror_set": "dependency mirror set",
		"action.setting.two_step_required": "two-step requirement for everyone set", "object.setting": "setting",
		"object.token": "token", "object.user": "user", "object.project": "project", "object.notification": "notification", "object.trigger": "trigger", "object.secret": "secret", "object.channel": "channel", "object.script": "script", "object.backup": "backup", "object.subscription": "subscription", "object.dependency": "dependency",
		"notification.pending": "pending", "notification.delivered": "delivered", "notification.dead": "dead",
		"event.failed": "failed", "event.timed_out": "timed out", "event.lost": "lost", "event.skipped": "occurrences passed over",
		"event.recovered": "recovered", "event.consecutive_failures": "failures in a row",
		"event.succeeded": "succeeded", "event.finished": "finished",
		"misfire.skip":            "an occurrence found later than the grace period is passed over",
		"misfire.fire_once":       "of the occurrences missed (an outage, a pause), the oldest runs once and the others are passed over",
		"overlap.allow":           "an occurrence runs whether or not an earlier run is unfinished",
		"overlap.skip":            "an occurrence is passed over while an earlier run is unfinished",
		"overlap.queue_one":       "an occurrence waits for the unfinished run to finish; with one waiting already, it is passed over",
		"overlap.cancel_previous": "an occurrence cancels the unfinished runs and waits until they have stopped",
	},
	"zh": {
		"run.created": "已创建", "run.queued": "排队中", "run.dispatching": "分派中", "run.running": "运行中",
		"run.waiting_approval": "等待审批", "run.retry_wait": "等待重试", "run.succeeded": "成功",
		"run.failed": "失败", "run.cancelled": "已取消", "run.timed_out": "超时", "run.lost": "已丢失",
		"attempt.claimed": "等待启动", "attempt.starting": "启动中", "attempt.running": "运行中", "attempt.succeeded": "成功",
		"attempt.failed": "失败", "attempt.timed_out": "超时", "attempt.cancelled": "已取消", "attempt.lost": "已丢失",
		"attempt.granted": "已交给执行节点，尚未启动",
		"token.active":    "有效", "token.revoked": "已吊销", "token.expired": "已过期",
		"scope.read": "只读", "scope.operate": "操作", "scope.admin": "管理",
		"worker.active": "在线", "worker.draining": "排空中", "worker.revoked": "已吊销",
		"passed.misfire": "晚于宽限期（misfire: skip）", "passed.collapsed": "并入错过策略为它们放行的那一次运行",
		"passed.collapsed.fire_once":        "并入最早错过的那次运行（misfire: fire_once）",
		"passed.collapsed.fire_once_window": "并入补跑窗口内最早错过的那次运行（misfire: fire_once）",
		"passed.collapsed.skip":             "并入仍在宽限期内最早的那次运行（misfire: skip）",
		"passed.catch_up_window":            "早于补跑窗口", "passed.paused": "已暂停", "passed.outside_bounds": "超出起止时间",
		"passed.disabled": "已停用", "passed.overlap": "上一次运行未结束（重叠策略）", "passed.republished": "所属修订版已被替换",
		"passed.project_archived": "所属项目已归档", "passed.clock_went_back": "时钟回拨前已运行过", "passed.restored": "从备份恢复前错过，未补跑",
		"kind.project": "项目", "kind.task": "任务", "kind.trigger": "触发器",
		"change.created": "新建", "change.updated": "更新", "change.unchanged": "未变",
		"origin.run_now": "立即运行", "origin.rerun": "重新运行", "origin.backfill": "回填",
		"audit.pause": "暂停", "audit.resume": "恢复", "audit.enable": "启用", "audit.disable": "停用",
		"action.token.created": "创建令牌", "action.token.revoked": "吊销令牌",
		"action.user.created": "创建用户", "action.user.disabled": "停用用户", "action.user.enabled": "启用用户", "action.user.deleted": "删除用户",
		"action.user.password_set": "设置密码", "action.user.password_changed": "修改本人密码", "action.user.projects_set": "设置绑定项目",
		"action.user.two_step_enabled": "开启两步验证", "action.user.two_step_disabled": "关闭两步验证",
		"action.user.two_step_reset": "重置两步验证", "action.user.recovery_code_used": "使用恢复码",
		"action.project.paused": "暂停项目", "action.project.resumed": "恢复项目", "action.notification.retried": "重试通知", "action.channel.tested": "测试渠道",
		"action.project.archived": "归档项目", "action.project.activated": "激活项目", "action.project.deleted": "删除项目",
		"action.secret.set": "设置密钥", "action.secret.deleted": "删除密钥",
		"action.script.saved": "保存脚本", "action.script.created": "新建脚本", "action.script.uploaded": "上传脚本",
		"action.script.renamed": "重命名脚本", "action.script.deleted": "删除脚本", "action.script.folder_created": "新建脚本文件夹",
		"action.trigger.paused": "暂停触发器", "action.trigger.resumed": "恢复触发器", "action.trigger.enabled": "启用触发器", "action.trigger.disabled": "停用触发器", "action.backup.downloaded": "下载备份",
		"action.subscription.created": "添加订阅", "action.subscription.updated": "修改订阅", "action.subscription.deleted": "删除订阅", "action.subscription.pulled": "拉取订阅",
		"action.dependency.added": "添加依赖", "action.dependency.installed": "安装依赖", "action.dependency.removed": "删除依赖", "action.dependency.mirror_set": "设置依赖镜像",
		"action.setting.two_step_required": "设置所有用户的两步验证要求", "object.setting": "设置",
		"object.token": "令牌", "object.user": "用户", "object.project": "项目", "object.notification": "通知", "object.trigger": "触发器", "object.secret": "密钥", "object.channel": "渠道", "object.script": "脚本", "object.backup": "备份", "object.subscription": "订阅", "object.dependency": "依赖",
		"notification.pending": "待发送", "notification.delivered": "已送达", "notification.dead": "无法送达",
		"event.failed": "失败", "event.timed_out": "超时", "event.lost": "已丢失", "event.skipped": "跳过发生时刻",
		"event.recovered": "已恢复", "event.consecutive_failures": "连续失败",
		"event.succeeded": "成功", "event.finished": "运行结束",
		"misfire.skip":            "晚于宽限期才处理到的发生时刻被跳过",
		"misfire.fire_once":       "错过的发生时刻（停机、暂停期间）中最早的一次运行一次，其余跳过",
		"overlap.allow":           "无论更早的运行是否结束，发生时刻都会运行",
		"overlap.skip":            "更早的运行未结束时，跳过该发生时刻",
		"overlap.queue_one":       "发生时刻等待未结束的运行结束；已有一个在等待时则跳过",
		"overlap.cancel_previous": "发生时刻取消未结束的运行，等它们停止后再运行",
	},
}

// word is the page's name of value v of kind in lang: the language's word,
// else the English one, else v itself.
func word(lang, kind string, v any) string {
	key := kind + "." + fmt.Sprint(v)
	if s, ok := words[lang][key]; ok {
		return s
	}
	if s, ok := words["en"][key]; ok {
		return s
	}
	return fmt.Sprint(v)
}
