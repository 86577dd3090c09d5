package notify

import (
	"encoding/json"
	"mime"
	"strings"
	"testing"
)

// titled is sample with a trigger title of a person's choosing, in
// Chinese and holding what Slack would read as a mention.
func titled(c Channel) Message {
	m := sample(c)
	m.Payload.TriggerTitle = "每日签到 <!channel>"
	return m
}

// A trigger's title leads a notification's title, before the project and
// trigger names it leaves as they are; the webhook payload carries it as
// triggerTitle; each channel escapes it as its format asks: Slack's markup,
// ntfy's and the email's headers as RFC 2047 words.
func TestATriggersTitleLeadsItsNotificationsEscapedForEachChannel(t *testing.T) {
	want := "QingLong: 每日签到 <!channel> · shop/nightly-backup failed 3 times in a row"
	if got := Title(titled(Channel{}).Payload); got != want {
		t.Fatalf("title %q, want %q", got, want)
	}
	for _, kind := range []Kind{Webhook, Slack, Ntfy, Telegram} {
		c, _ := goldenChannel(kind)
		req, err := Build(titled(c), secrets, sentAt)
		if err != nil {
			t.Fatal(err)
		}
		switch kind {
		case Webhook:
			var p map[string]any
			if err := json.Unmarshal(req.Body, &p); err != nil || p["triggerTitle"] != "每日签到 <!channel>" || p["trigger"] != "nightly-backup" {
				t.Fatalf("webhook payload %s (%v); want triggerTitle beside trigger", req.Body, err)
			}
		case Slack:
			var body map[string]string
			if err := json.Unmarshal(req.Body, &body); err != nil || strings.Contains(body["text"], "<!channel>") || !strings.Contains(body["text"], "每日签到 &lt;!channel&gt; · shop/nightly-backup") {
				t.Fatalf("slack body %s; want the title escaped, no mention", req.Body)
			}
		case Ntfy:
			h := req.Headers["Title"]
			dec, err := new(mime.WordDecoder).DecodeHeader(h)
			if strings.ContainsFunc(h, func(r rune) bool { return r > 127 }) || err != nil || dec != want {
				t.Fatalf("ntfy Title header %q decodes to %q (%v); want ASCII words decoding to %q", h, dec, err, want)
			}
		case Telegram:
			if !strings.Contains(string(req.Body), "每日签到 \\u003c!channel\\u003e · shop/nightly-backup") {
				t.Fatalf("telegram body %s; want the title as plain text", req.Body)
			}
		}
	}
	c, _ := goldenChannel(Email)
	mail, err := BuildMail(titled(c), sentAt)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(mail.Message), "\r\n\r\n")
	var subject string
	for _, line := range strings.Split(strings.ReplaceAll(head, "\r\n ", " "), "\r\n") {
		if v, ok := strings.CutPrefix(line, "Subject: "); ok {
			subject = v
		}
	}
	dec, err := new(mime.WordDecoder).DecodeHeader(subject)
	if strings.ContainsFunc(head, func(r rune) bool { return r > 127 }) || err != nil || dec != want {
		t.Fatalf("email subject %q decodes to %q (%v); want RFC 2047 words decoding to %q", subject, dec, err, want)
	}
}

// A project's and a task's titles are in a notification's detail lines
// beside their names and in the webhook payload as projectTitle and
// taskTitle; a Markdown channel escapes them as it escapes the trigger's,
// and Slack's text reads no mention in them.
func TestAProjectsAndTasksTitlesAreInItsNotificationsEscapedForEachChannel(t *testing.T) {
	m := titled(Channel{})
	m.Payload.ProjectTitle, m.Payload.TaskTitle = "商城 <!here>", "备份 *粗*"
	text := Details(m.Payload)
	if !strings.Contains(text, "project: 商城 <!here> · shop\n") || !strings.Contains(text, "task: 备份 *粗* · backup\n") {
		t.Fatalf("details %q; want the project's and the task's titles before their names", text)
	}
	for _, kind := range []Kind{Webhook, Slack, ServerChan} {
		c, _ := goldenChannel(kind)
		m.Channel = c
		req, err := Build(m, secrets, sentAt)
		if err != nil {
			t.Fatal(err)
		}
		switch kind {
		case Webhook:
			var p map[string]any
			if err := json.Unmarshal(req.Body, &p); err != nil || p["projectTitle"] != "商城 <!here>" || p["taskTitle"] != "备份 *粗*" {
				t.Fatalf("webhook payload %s (%v); want projectTitle and taskTitle", req.Body, err)
			}
		case Slack:
			var body map[string]string
			if err := json.Unmarshal(req.Body, &body); err != nil || strings.Contains(body["text"], "<!here>") || !strings.Contains(body["text"], "商城 &lt;!here&gt; · shop") {
				t.Fatalf("slack body %s; want the project's title escaped, no mention", req.Body)
			}
		case ServerChan:
			var body map[string]string
			if err := json.Unmarshal(req.Body, &body); err != nil || !strings.Contains(body["desp"], `task: 备份 \*粗\* · backup`) || !strings.Contains(body["desp"], `商城 &lt;\!here&gt; · shop`) {
				t.Fatalf("serverchan desp %s; want the titles escaped for Markdown", req.Body)
			}
		}
	}
}
