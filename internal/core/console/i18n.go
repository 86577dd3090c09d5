package console

import (
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// messages are the console's words in English and Simplified Chinese.
//
//nolint:gosec // G101: the word "token" in labels, not a credential
var messages = map[string]map[string]string{
	"en": {
		"title": "QingLong", "overview": "Overview", "triggers": "Triggers", "runs": "Runs", "signout": "Sign out",
		"signin": "Sign in", "token": "API token", "signin.help": "Paste an API token (create one with `ql tokens create NAME --scope operate`).",
		"err.malformed": "That is not an API token: tokens start with qlt_.", "err.unknown": "That token is not known, revoked or expired.",
		"last24": "Runs of the last 24 hours by state", "counted": "runs counted", "failures": "Recent failures", "nextfires": "Next fires",
		"search": "Search", "project": "Project", "trigger": "Trigger", "task": "Task", "schedule": "Schedule", "next": "Next fire",
		"state": "State", "paused": "paused", "active": "active", "pause": "Pause", "resume": "Resume", "note": "Note",
		"runnow": "Run now", "ledger": "Timeline", "passed": "passed over", "scheduled": "Scheduled", "created": "Created",
		"any": "any", "filter": "Filter", "more": "Next page", "none": "Nothing here.", "attempts": "Attempts", "events": "Events",
		"exit": "Exit code", "cancel": "Cancel run", "log": "Output", "live": "live", "signedin": "Signed in as",
		"disabled": "disabled", "duration": "Duration", "number": "#", "worker": "Worker", "reason": "Reason", "count": "Count",
		"rerun": "Re-run", "rerunof": "Re-run of", "nextfive": "Next 5 fires", "yours": "your time:", "nofires": "none: the trigger has ended",
		"from": "From", "to": "To", "zone": "Times in",
	},
	"zh": {
		"title": "青龙", "overview": "概览", "triggers": "触发器", "runs": "运行", "signout": "退出",
		"signin": "登录", "token": "API 令牌", "signin.help": "粘贴 API 令牌（用 `ql tokens create NAME --scope operate` 创建）。",
		"err.malformed": "这不是 API 令牌：令牌以 qlt_ 开头。", "err.unknown": "令牌未知、已吊销或已过期。",
		"last24": "最近 24 小时各状态的运行", "counted": "条运行", "failures": "最近失败", "nextfires": "即将触发",
		"search": "搜索", "project": "项目", "trigger": "触发器", "task": "任务", "schedule": "计划", "next": "下次触发",
		"state": "状态", "paused": "已暂停", "active": "运行中", "pause": "暂停", "resume": "恢复", "note": "备注",
		"runnow": "立即运行", "ledger": "时间线", "passed": "已跳过", "scheduled": "计划时间", "created": "创建时间",
		"any": "全部", "filter": "筛选", "more": "下一页", "none": "暂无内容。", "attempts": "尝试", "events": "事件",
		"exit": "退出码", "cancel": "取消运行", "log": "输出", "live": "实时", "signedin": "当前令牌",
		"disabled": "已停用", "duration": "耗时", "number": "#", "worker": "执行者", "reason": "原因", "count": "次数",
		"rerun": "重新运行", "rerunof": "重新运行自", "nextfive": "接下来 5 次触发", "yours": "你的时间：", "nofires": "无：触发器已结束",
		"from": "起始", "to": "截止", "zone": "时区",
	},
}

func tr(lang, key string) string {
	if s, ok := messages[lang][key]; ok {
		return s
	}
	return messages["en"][key]
}

// lang is the request's language: ?lang=, then the switch's cookie, then
// Accept-Language, then English.
func lang(r *http.Request) string {
	if q := r.URL.Query().Get("lang"); messages[q] != nil {
		return q
	}
	if ck, err := r.Cookie(langCookie); err == nil && messages[ck.Value] != nil {
		return ck.Value
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		if strings.HasPrefix(tag, "zh") {
			return "zh"
		}
		if strings.HasPrefix(tag, "en") {
			return "en"
		}
	}
	return "en"
}

// when formats epoch milliseconds in zone (UTC when empty or unknown),
// always with the zone's name.
func when(ms int64, zone string) string {
	loc, err := time.LoadLocation(zone)
	if zone == "" || err != nil {
		loc = time.UTC
	}
	return time.UnixMilli(ms).In(loc).Format("2006-01-02 15:04:05 MST")
}

var funcs = template.FuncMap{
	"t":      tr,
	"when":   func(ms int64) string { return when(ms, "") },
	"whenIn": when,
	"whenPtr": func(ms *int64, zone string) string {
		if ms == nil {
			return "—"
		}
		return when(*ms, zone)
	},
	"exit": func(c *int64) string {
		if c == nil {
			return "—"
		}
		return strconvItoa(*c)
	},
	"duration": func(a run.Attempt) string {
		if a.StartedAtMs == nil || a.FinishedAtMs == nil {
			return "—"
		}
		return (time.Duration(*a.FinishedAtMs-*a.StartedAtMs) * time.Millisecond).String()
	},
	"dict": func(l string, runs []run.Run) map[string]any { return map[string]any{"L": l, "Runs": runs} },
	"fires": func(l string, fires []int64, triggerZone, viewerZone string) map[string]any {
		return map[string]any{"L": l, "Fires": fires, "TriggerZone": triggerZone, "ViewerZone": viewerZone}
	},
}
