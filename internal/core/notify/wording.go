package notify

import (
	"fmt"
	"time"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// The languages a channel's text is written in.
const (
	English = "en"
	Chinese = "zh"
)

// Languages lists every language a channel may ask for.
var Languages = []string{English, Chinese}

// displayTime is how a time reads in a channel that names a zone: local,
// with the zone's offset, so a reader never converts it.
const displayTime = "2006-01-02 15:04:05 -07:00"

// wording is how a channel's human text reads: its language, and the
// zone its times are shown in (nil: as the payload holds them, in UTC).
// The payload's own fields never change with it.
type wording struct {
	zh  bool
	loc *time.Location
}

// english is the wording of a channel that asks for none.
var english = wording{}

// wording is the channel's wording. Its settings were validated when
// applied, so a zone that no longer loads (a host without the zone
// database) falls back to UTC rather than fail the delivery.
func (c Channel) wording() wording {
	w := wording{zh: c.Language == Chinese}
	if c.TimeZone != "" {
		if loc, err := time.LoadLocation(c.TimeZone); err == nil {
			w.loc = loc
		}
	}
	return w
}

// validateWording checks language and timeZone: one of Languages, and a
// zone as a trigger's is checked; both may be left out.
func (c Channel) validateWording(field string) error {
	if c.Language != "" && !contains(Languages, c.Language) {
		return qlerror.New(qlerror.Invalid, "%s.language: %q is not one of en, zh (the language of the channel's text; leave it out for en)", field, c.Language).
			Because(validate.RefusalNotOneOf, "field", field+".language", "value", c.Language, "allowed", "en, zh")
	}
	if c.TimeZone != "" {
		if err := cron.CheckTimezone(c.TimeZone); err != nil {
			return cron.ZoneRefusal(field+".timeZone", err)
		}
	}
	return nil
}

// at is an RFC 3339 time of the payload as the channel shows it.
func (w wording) at(s string) string {
	if w.loc == nil || s == "" {
		return s
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.In(w.loc).Format(displayTime)
}

// say is the English or the Chinese, as the channel reads.
func (w wording) say(en, zh string) string {
	if w.zh {
		return zh
	}
	return en
}

var zhVerbs = map[Event]string{
	OnSucceeded: "运行成功", OnFailed: "运行失败", OnTimedOut: "运行超时", OnLost: "运行丢失", OnSkipped: "跳过了发生时刻",
	OnRecovered: "已恢复", OnConsecutiveFailures: "连续失败 %d 次",
	OnTest: "测试消息：渠道可用（没有对应的运行）",
}

// zhValues are the Chinese of the values the detail lines show: Run
// states, origins and ledger reasons. A value without one shows as it is.
var zhValues = map[string]string{
	"succeeded": "成功", "failed": "失败", "cancelled": "已取消", "timed_out": "超时", "lost": "丢失",
	"clock": "定时触发", "run_now": "立即运行", "rerun": "重新运行", "backfill": "回填",
	"misfire": "错过", "collapsed": "合并", "catch_up_window": "超出补跑窗口", "paused": "已暂停", "outside_bounds": "超出起止时间",
	"disabled": "已停用", "overlap": "重叠", "republished": "重新发布", "project_archived": "项目已归档",
	"clock_went_back": "时钟回拨", "restored": "已恢复",
}

// value is a detail line's value as the channel reads it.
func (w wording) value(v string) string {
	if z, ok := zhValues[v]; ok && w.zh {
		return z
	}
	return v
}

// verb says what happened: how the Run ended, or that an occurrence was
// skipped.
func (w wording) verb(p Payload) string {
	e := p.Event
	if e == OnFinished {
		e = Event(p.RunState)
	}
	if w.zh {
		if e == OnConsecutiveFailures {
			return fmt.Sprintf(zhVerbs[e], p.ConsecutiveFailures)
		}
		return zhVerbs[e]
	}
	if e == OnConsecutiveFailures {
		return fmt.Sprintf(verbs[e], plural.Count(p.ConsecutiveFailures, "time", "times"))
	}
	return verbs[e]
}

// title is the one-line summary of a payload.
func (w wording) title(p Payload) string {
	if w.zh {
		return fmt.Sprintf("青龙：%s %s", subject(p), w.verb(p))
	}
	return fmt.Sprintf("QingLong: %s %s", subject(p), w.verb(p))
}

// testSaid is a test message's first detail line: that it is a test,
// from which server, for which project, and that no Run stands behind it.
func (w wording) testSaid(p Payload) string {
	switch {
	case w.zh && p.Server != "":
		return fmt.Sprintf("这是青龙服务器 %s 为项目 %s 发送的测试消息：渠道可用，没有对应的运行。", p.Server, p.Project)
	case w.zh:
		return fmt.Sprintf("这是青龙为项目 %s 发送的测试消息：渠道可用，没有对应的运行。", p.Project)
	case p.Server != "":
		return fmt.Sprintf("This is a test message from the QingLong server %s for project %s: the channel works; no Run stands behind it.", p.Server, p.Project)
	}
	return fmt.Sprintf("This is a test message from QingLong for project %s: the channel works; no Run stands behind it.", p.Project)
}

// outputHeading is the line before a quoted output.
func (w wording) outputHeading(p Payload) string {
	n := countLines(p.Output)
	if w.zh {
		return fmt.Sprintf("输出（最后 %d 行）：", n)
	}
	return fmt.Sprintf("output (last %s):", plural.Count(n, "line", "lines"))
}

// humanPayload is a webhook's payload with the text a person reads: its
// own fields stay as they are, for programs.
type humanPayload struct {
	Payload
	Title string `json:"title"`
	Text  string `json:"text"`
}

// webhookBody is a webhook's body: the payload, and for a channel that
// names a language or a zone the title and text in them too. A channel
// naming neither sends the payload alone, as before either existed.
func webhookBody(p Payload, c Channel, w wording) any {
	if c.Language == "" && c.TimeZone == "" {
		return p
	}
	return humanPayload{Payload: p, Title: w.title(p), Text: w.text(p)}
}
