package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/run"
)

// Headers of every delivery.
const (
	// HeaderIdempotencyKey is the outbox row's id: the same on every
	// delivery of one notification, so a receiver drops repeats.
	HeaderIdempotencyKey = "Idempotency-Key"
	// HeaderEvent names the rule's event.
	HeaderEvent = "X-QingLong-Event"
	// HeaderSignature is "sha256=" and the hex HMAC-SHA256 of the body
	// under the channel's signing secret (webhook channels with one).
	HeaderSignature = "X-QingLong-Signature-256"
)

// Request is one HTTP delivery: always a POST.
type Request struct {
	URL     string
	Headers map[string]string
	Body    []byte
}

// Secrets are the values of a channel's secret references, by name.
type Secrets map[string]string

// Refs are the secret names a channel uses.
func (c Channel) Refs() []string {
	var out []string
	for _, r := range []string{c.URLSecret, c.SigningSecret, c.TokenSecret, c.PasswordSecret} {
		if r != "" {
			out = append(out, r)
		}
	}
	return out
}

// PushPlusURL is where a pushplus channel without a url sends.
const PushPlusURL = "https://www.pushplus.plus/send"

// serverChanTitleLen is the longest title ServerChan takes, in
// characters; the whole title leads its text.
const serverChanTitleLen = 32

// shortTitle is the title in at most n characters: the title itself when
// it fits, else how the Run ended before whose Run it was, so a cut takes
// the end of the name, never the verb ("failed: shop/daily-che…", not
// "QingLong: shop/daily-checkin fa…").
func shortTitle(w wording, p Payload, n int) string {
	if t := w.title(p); utf8.RuneCountInString(t) <= n {
		return t
	}
	return cut(w.verb(p)+w.say(": ", "：")+subject(p), n)
}

// Build renders m for its HTTP channel with the resolved secrets, for a
// delivery at now. The body depends only on the row, so every delivery of
// it is byte-identical, except a signed Feishu channel's: Feishu takes a
// signature only within an hour of its time, so each delivery signs anew
// (a signed DingTalk channel's does so in the URL). An email channel is
// sent over SMTP instead (BuildMail).
func Build(m Message, sec Secrets, now time.Time) (Request, error) {
	c := m.Channel
	req := Request{URL: c.URL, Headers: map[string]string{
		"Content-Type": "application/json", HeaderIdempotencyKey: m.ID, HeaderEvent: string(m.Payload.Event),
	}}
	switch {
	case c.URLSecret != "":
		req.URL = sec[c.URLSecret]
		if err := CheckURL(req.URL); err != nil {
			// The message names the secret, never its value.
			return Request{}, fmt.Errorf("secret %q (the URL of channel %s): %v", c.URLSecret, c.Name, err)
		}
	case c.Kind == ServerChan:
		u, err := ServerChanURL(sec[c.TokenSecret])
		if err != nil {
			return Request{}, fmt.Errorf("secret %q (the SendKey of channel %s): %v", c.TokenSecret, c.Name, err)
		}
		req.URL = u
	case c.Kind == PushPlus && c.URL == "":
		req.URL = PushPlusURL
	}
	if c.Kind == Gotify {
		u, err := url.Parse(req.URL)
		if err != nil {
			return Request{}, fmt.Errorf("channel %s: the URL does not parse", c.Name)
		}
		// The server's address, or its push URL as Gotify's pages show it.
		if !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/message") {
			u = u.JoinPath("message")
		}
		req.URL = u.String()
	}
	w := c.wording()
	title, text := w.title(m.Payload), w.text(m.Payload)
	var body any
	switch c.Kind {
	case Webhook:
		body = webhookBody(m.Payload, c, w)
	case Telegram:
		body = map[string]any{"chat_id": c.ChatID, "text": title + "\n" + text, "disable_web_page_preview": true}
	case DingTalk, WeCom:
		body = map[string]any{"msgtype": "text", "text": map[string]string{"content": title + "\n" + text}}
	case Feishu:
		fields := map[string]any{"msg_type": "text", "content": map[string]string{"text": feishuText(title + "\n" + text)}}
		if c.SigningSecret != "" {
			ts := strconv.FormatInt(now.Unix(), 10)
			fields["timestamp"], fields["sign"] = ts, FeishuSign(sec[c.SigningSecret], ts)
		}
		body = fields
	case Bark:
		body = map[string]string{"title": title, "body": text, "group": "qinglong"}
	case Slack:
		body = map[string]string{"text": slackEscape(title + "\n" + w.markdownText(m.Payload))}
	case Ntfy:
		req.Headers["Content-Type"] = "text/plain; charset=utf-8"
		// A header is ASCII: a title in another script goes as RFC 2047
		// words, which ntfy decodes.
		req.Headers["Title"] = mime.BEncoding.Encode("utf-8", title)
		req.Headers["Tags"] = tag(m.Payload)
		req.Body = []byte(text)
	case Gotify:
		body = map[string]any{"title": title, "message": text, "priority": gotifyPriority(m.Payload)}
		req.Headers["X-Gotify-Key"] = sec[c.TokenSecret]
	case PushPlus:
		// The token is the body's: PushPlus takes it nowhere else but the
		// URL, which a refusal's reason could show.
		body = map[string]string{"token": sec[c.TokenSecret], "title": title, "content": text, "template": "txt"}
	case ServerChan:
		// desp is Markdown, where lines with no blank one between them
		// run together into one.
		md := markdownPayload(m.Payload)
		desp := w.title(md) + "\n\n" + strings.ReplaceAll(w.details(md), "\n", "\n\n")
		if m.Payload.Output != "" {
			desp += "\n\n" + w.markdownOutput(m.Payload)
		}
		body = map[string]string{"title": shortTitle(w, m.Payload, serverChanTitleLen), "desp": desp}
	case Email:
		return Request{}, fmt.Errorf("channel %s: an email channel is sent over SMTP, not HTTP", c.Name)
	default:
		return Request{}, fmt.Errorf("channel %s: unknown kind %q", c.Name, c.Kind)
	}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return Request{}, err
		}
		req.Body = b
	}
	switch {
	case c.SigningSecret == "":
	case c.Kind == Webhook:
		req.Headers[HeaderSignature] = Sign(sec[c.SigningSecret], req.Body)
	case c.Kind == DingTalk:
		u, err := url.Parse(req.URL)
		if err != nil {
			return Request{}, fmt.Errorf("channel %s: the URL does not parse", c.Name)
		}
		ts := strconv.FormatInt(now.UnixMilli(), 10)
		q := u.Query()
		q.Set("timestamp", ts)
		q.Set("sign", DingTalkSign(sec[c.SigningSecret], ts))
		u.RawQuery = q.Encode()
		req.URL = u.String()
	}
	if c.TokenSecret != "" && (c.Kind == Webhook || c.Kind == Ntfy) {
		req.Headers["Authorization"] = "Bearer " + sec[c.TokenSecret]
	}
	return req, nil
}

// serverChanKey is a SendKey as ServerChan issues them: letters and
// digits. A SendKey of ServerChan³ starts with sctp, its user's number
// and t, which name its host.
var (
	serverChanKey = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
	serverChan3   = regexp.MustCompile(`^sctp([0-9]+)t`)
)

// ServerChanURL is the URL a SendKey posts to: ServerChan Turbo's, or
// ServerChan³'s for a key of that kind, as the service's SDKs choose it.
// Its errors never show the key.
func ServerChanURL(key string) (string, error) {
	if !serverChanKey.MatchString(key) {
		return "", fmt.Errorf("is not a SendKey (letters and digits, as sct.ftqq.com or sc3.ft07.com shows it)")
	}
	if m := serverChan3.FindStringSubmatch(key); m != nil {
		return "https://" + m[1] + ".push.ft07.com/send/" + key + ".send", nil
	}
	return "https://sctapi.ftqq.com/" + key + ".send", nil
}

// gotifyPriority is a notification's Gotify priority: 8, which Gotify's
// apps show at once with a sound, for a failure or a skipped occurrence;
// 5, a notification with a sound, for a Run that succeeded.
func gotifyPriority(p Payload) int {
	if succeeded(p) {
		return 5
	}
	return 8
}

// succeeded reports whether a notification tells of a Run that succeeded:
// a succeeded or recovered one, or a finished one that ended so.
func succeeded(p Payload) bool {
	return p.Event == OnRecovered || p.RunState == string(run.Succeeded)
}

// cut shortens s to at most n characters, the last of them an ellipsis
// when it had more.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Sign is the signature header's value: "sha256=" + hex HMAC-SHA256.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// DingTalkSign is the sign parameter of a DingTalk robot in signed mode
// (加签) at timestamp, in milliseconds: the base64 HMAC-SHA256 of
// "timestamp\nsecret" under the secret.
func DingTalkSign(secret, timestamp string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp + "\n" + secret))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// FeishuSign is the sign field of a Feishu bot with signature
// verification (签名校验) at timestamp, in seconds: the base64
// HMAC-SHA256 of nothing under the key "timestamp\nsecret".
func FeishuSign(secret, timestamp string) string {
	mac := hmac.New(sha256.New, []byte(timestamp+"\n"+secret))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Verify checks a signature header in constant time; receivers in Go can
// call it, others follow docs/notifications.md.
func Verify(secret string, body []byte, header string) bool {
	return hmac.Equal([]byte(Sign(secret, body)), []byte(header))
}

var verbs = map[Event]string{
	OnSucceeded: "succeeded", OnFailed: "failed", OnTimedOut: "timed out", OnLost: "was lost", OnSkipped: "skipped an occurrence",
	OnRecovered: "recovered", OnConsecutiveFailures: "failed %s in a row",
	OnTest: "test message: the channel works (no Run behind it)",
}

// Title is the one-line summary of a payload in English. A finished
// notification says how the Run ended, as the rule of that end would.
func Title(p Payload) string { return english.title(p) }

// subject is whose it is: the project, and its trigger when there is
// one, after the trigger's title when it has one ("每日签到 · shop/checkin").
func subject(p Payload) string {
	if p.Trigger == "" {
		return p.Project
	}
	if p.TriggerTitle != "" {
		return p.TriggerTitle + " · " + p.Project + "/" + p.Trigger
	}
	return p.Project + "/" + p.Trigger
}

// titledName is a name after its display title when it has one
// ("签到 · checkin"), as the console shows them; "" without a name.
func titledName(title, name string) string {
	if title == "" || name == "" {
		return name
	}
	return title + " · " + name
}

// Details is the detail lines of a payload in English, its times in UTC.
func Details(p Payload) string { return english.details(p) }

// details is the detail lines of a payload: what ran, how it ended, when;
// the project's display title, which the title line leaves out, and the
// task's before its name.
func (w wording) details(p Payload) string {
	var b strings.Builder
	line := func(en, zh, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s%s%s\n", w.say(en, zh), w.say(": ", "："), v)
		}
	}
	if p.Event == OnTest {
		b.WriteString(w.testSaid(p) + "\n")
	}
	line("run", "运行", p.RunID)
	if p.ProjectTitle != "" {
		line("project", "项目", p.ProjectTitle+" · "+p.Project)
	}
	line("task", "任务", titledName(p.TaskTitle, p.Task))
	line("state", "状态", w.value(p.RunState))
	if p.Attempt > 1 {
		line("attempt", "尝试", fmt.Sprint(p.Attempt))
	}
	if p.ExitCode != nil {
		line("exit code", "退出码", fmt.Sprint(*p.ExitCode))
	}
	if p.Signal != 0 {
		line("signal", "信号", fmt.Sprintf("%d (%s)", p.Signal, p.SignalName))
	}
	line("error", "错误", p.ErrorCode)
	line("reason", "原因", w.value(p.Reason))
	if p.Occurrences > 0 {
		line("occurrences", "发生时刻数", fmt.Sprint(p.Occurrences))
	}
	line("scheduled for", "计划时间", w.at(p.ScheduledFor))
	line("last scheduled for", "最后计划时间", w.at(p.LastScheduledFor))
	line("started at", "开始时间", w.at(p.StartedAt))
	line("finished at", "结束时间", w.at(p.FinishedAt))
	if p.DurationMs != nil {
		took := w.took(time.Duration(*p.DurationMs) * time.Millisecond)
		if p.DurationIsLowerBound {
			took = w.say("≥ "+took+" (until last heard from)", "至少 "+took+"（至最后一次联系）")
		}
		line("took", "耗时", took)
	}
	line("origin", "来源", w.value(p.Origin))
	line("link", "链接", p.Link)
	return strings.TrimSuffix(b.String(), "\n")
}

// text is the detail lines of a payload and, when it quotes output, the
// output after a line saying what it is.
func (w wording) text(p Payload) string {
	if p.Output == "" {
		return w.details(p)
	}
	return w.details(p) + "\n" + w.outputHeading(p) + "\n" + p.Output
}

// markdownText is text for a service that renders Markdown: the output in
// a fenced code block, so that its characters are shown, not rendered.
func (w wording) markdownText(p Payload) string {
	if p.Output == "" {
		return w.details(p)
	}
	return w.details(p) + "\n" + w.markdownOutput(p)
}

// markdownOutput is the quoted output's heading and the output fenced by
// more backticks than any run of them in it.
func (w wording) markdownOutput(p Payload) string {
	fence := "```"
	for strings.Contains(p.Output, fence) {
		fence += "`"
	}
	return w.outputHeading(p) + "\n" + fence + "\n" + p.Output + "\n" + fence
}

// countLines is how many lines a quoted output holds.
func countLines(s string) int { return strings.Count(s, "\n") + 1 }

func tag(p Payload) string {
	if succeeded(p) {
		return "white_check_mark"
	}
	return "warning"
}
