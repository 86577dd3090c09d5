package console

import "strings"

// fieldLabels name, in each language, the fields a definitions preview
// says an update changes (apply's names: command.script, taskRevision),
// as a person who never read the file's Go names reads them; the page
// keeps the field's own name in the label's title.
var fieldLabels = map[string]map[string]string{
	"en": {
		"name": "name", "enabled": "enabled", "labels": "labels", "title": "title", "taskRevision": "task revision",
		"notifications": "notifications", "command.mode": "command kind", "command.path": "program path", "command.args": "arguments",
		"command.shell": "shell", "command.script": "script", "command.env": "environment", "command.workingDir": "working directory",
		"command.timeoutMs": "timeout", "command.runAs.user": "run-as user", "command.runAs.group": "run-as group",
		"command.killGraceMs": "kill grace", "command.retry.maxAttempts": "retry attempts", "command.retry.backoffMs": "retry backoff",
		"command.retry.on": "retry on", "command.placement.labels": "placement labels",
		"cron.expression": "cron expression", "cron.timezone": "time zone", "cron.misfirePolicy": "misfire policy", "cron.jitterMs": "jitter",
		"cron.startAtMs": "start", "cron.endAtMs": "end", "cron.catchUpWindowMs": "catch-up window", "cron.hasCatchUpWindow": "catch-up window",
		"cron.overlap": "overlap policy", "status": "status", "status.active": "active", "status.archived": "archived",
	},
	"zh": { //nolint:gosec // G101: words of field names ("command.runAs.user": 运行用户), no credential
		"name": "名称", "enabled": "启用", "labels": "标签", "title": "标题", "taskRevision": "任务修订版",
		"notifications": "通知设置", "command.mode": "命令方式", "command.path": "程序路径", "command.args": "参数",
		"command.shell": "Shell", "command.script": "脚本", "command.env": "环境变量", "command.workingDir": "工作目录",
		"command.timeoutMs": "超时", "command.runAs.user": "运行用户", "command.runAs.group": "运行用户组",
		"command.killGraceMs": "终止宽限时间", "command.retry.maxAttempts": "最大尝试次数", "command.retry.backoffMs": "重试间隔",
		"command.retry.on": "重试条件", "command.placement.labels": "执行位置标签",
		"cron.expression": "cron 表达式", "cron.timezone": "时区", "cron.misfirePolicy": "错过策略", "cron.jitterMs": "抖动",
		"cron.startAtMs": "开始时间", "cron.endAtMs": "结束时间", "cron.catchUpWindowMs": "补跑窗口", "cron.hasCatchUpWindow": "补跑窗口",
		"cron.overlap": "重叠策略", "status": "状态", "status.active": "活动", "status.archived": "已归档",
	},
}

// fieldLabel is field, as a definitions preview lists it, in l: a
// project's "status active → archived" with its statuses in l's words
// too; a field of no label (one a newer build adds) as it is named.
func fieldLabel(l, field string) string {
	words, ok := fieldLabels[l]
	if !ok {
		words = fieldLabels["en"]
	}
	if from, to, ok := strings.Cut(strings.TrimPrefix(field, "status "), " → "); ok && strings.HasPrefix(field, "status ") {
		say := func(s string) string {
			if w, ok := words["status."+s]; ok {
				return w
			}
			return s
		}
		return words["status"] + " " + say(from) + " → " + say(to)
	}
	if w, ok := words[field]; ok {
		return w
	}
	return field
}
