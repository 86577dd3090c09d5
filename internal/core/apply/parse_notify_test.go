package apply

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/task"
)

const notifyBase = "project: demo\nnotifications:\n"

func TestParseReadsNotificationRulesAndChannels(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte(notifyBase+`  channels:
    ops: {type: webhook, url: "https://hooks.example.com/ql", signingSecret: ops_hmac}
    tg: {type: telegram, urlSecret: tg_url, chatId: "-1001234567890"}
  rules:
    - {on: failed, channel: ops}
    - {on: skipped, reasons: [paused, misfire], channel: ops}
    - {consecutive_failures: 3, channel: tg}
    - {on: recovered, channel: tg}
    - {on: succeeded, tasks: [checkin], channel: tg}
    - {on: finished, tasks: [checkin, backup], triggers: [nightly], channel: ops}
`))
	if err != nil {
		t.Fatal(err)
	}
	if !doc.HasNotifications {
		t.Fatal("the notifications block was not read")
	}
	want := notify.Spec{
		Channels: []notify.Channel{
			{Name: "ops", Kind: notify.Webhook, URL: "https://hooks.example.com/ql", SigningSecret: "ops_hmac"},
			{Name: "tg", Kind: notify.Telegram, URLSecret: "tg_url", ChatID: "-1001234567890"},
		},
		Rules: []notify.Rule{
			{On: notify.OnFailed, Channel: "ops"},
			{On: notify.OnSkipped, Reasons: []string{"paused", "misfire"}, Channel: "ops"},
			{On: notify.OnConsecutiveFailures, Count: 3, Channel: "tg"},
			{On: notify.OnRecovered, Channel: "tg"},
			{On: notify.OnSucceeded, Tasks: []string{"checkin"}, Channel: "tg"},
			{On: notify.OnFinished, Tasks: []string{"backup", "checkin"}, Triggers: []string{"nightly"}, Channel: "ops"},
		},
	}
	if doc.Notifications.Encode() != want.Encode() {
		t.Fatalf("read %s\nwant %s", doc.Notifications.Encode(), want.Encode())
	}
	plain, err := Parse("x.yaml", []byte("project: demo\n"))
	if err != nil || plain.HasNotifications {
		t.Fatalf("a file without notifications reads as having some (%v)", err)
	}
	cleared, err := Parse("x.yaml", []byte(notifyBase+"  {}\n"))
	if err != nil || !cleared.HasNotifications || cleared.Notifications.Encode() != "" {
		t.Fatalf("notifications: {} reads as %+v (%v); want settings that clear the project's", cleared, err)
	}
}

// An email channel is read with its server, its addresses (to: one, or a
// list) and its login; gotify, pushplus and serverchan with their token's
// secret.
func TestParseReadsEmailGotifyPushPlusAndServerChanChannels(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte(notifyBase+`  channels:
    mail:
      type: email
      host: smtp.qq.com
      port: 465
      from: "青龙 <12345@qq.com>"
      to: [ops@example.com, "值班 <oncall@example.cn>"]
      username: "12345@qq.com"
      passwordSecret: qq_smtp
    one: {type: email, host: mail.internal, tls: none, from: ql@example.com, to: ops@example.com}
    phone: {type: gotify, url: "https://gotify.example.com/", tokenSecret: gotify_app}
    wechat: {type: pushplus, tokenSecret: pushplus_token}
    sct: {type: serverchan, tokenSecret: sendkey}
    sct-url: {type: serverchan, urlSecret: sct_url, output: 20}
  rules:
    - {on: failed, channel: mail}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := notify.Spec{
		Channels: []notify.Channel{
			{Name: "mail", Kind: notify.Email, Host: "smtp.qq.com", Port: 465, From: "青龙 <12345@qq.com>",
				To: []string{"ops@example.com", "值班 <oncall@example.cn>"}, Username: "12345@qq.com", PasswordSecret: "qq_smtp"},
			{Name: "one", Kind: notify.Email, Host: "mail.internal", TLS: notify.TLSNone, From: "ql@example.com", To: []string{"ops@example.com"}},
			{Name: "phone", Kind: notify.Gotify, URL: "https://gotify.example.com/", TokenSecret: "gotify_app"},
			{Name: "wechat", Kind: notify.PushPlus, TokenSecret: "pushplus_token"},
			{Name: "sct", Kind: notify.ServerChan, TokenSecret: "sendkey"},
			{Name: "sct-url", Kind: notify.ServerChan, URLSecret: "sct_url", Output: 20},
		},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: "mail"}},
	}
	if doc.Notifications.Encode() != want.Encode() {
		t.Fatalf("read %s\nwant %s", doc.Notifications.Encode(), want.Encode())
	}
	mail, _ := doc.Notifications.Channel("mail")
	if mail.MailTLS() != notify.TLSImplicit || mail.MailPort() != 465 {
		t.Fatalf("port 465 without tls is %s on %d, want implicit TLS", mail.MailTLS(), mail.MailPort())
	}
	if one, _ := doc.Notifications.Channel("one"); one.MailPort() != 25 {
		t.Fatalf("a tls: none channel without a port is on %d, want 25", one.MailPort())
	}
}

func TestParseRejectsBadNotificationsWithTheirLine(t *testing.T) {
	t.Parallel()
	ch := "  channels:\n    ops: {type: webhook, url: \"https://h.example.com\"}\n  rules:\n"
	cases := map[string]struct{ yaml, want string }{
		"unknown kind":        {"  channels:\n    ops: {type: pager, url: \"https://h.example.com\"}\n  rules: []\n", `x.yaml:4: notifications.channels.ops.type: "pager" is not one of`},
		"no url":              {"  channels:\n    ops: {type: slack}\n  rules: []\n", "x.yaml:4: notifications.channels.ops: needs url, or urlSecret"},
		"url with password":   {"  channels:\n    ops: {type: slack, url: \"https://u:p@h.example.com\"}\n  rules: []\n", "x.yaml:4: notifications.channels.ops.url: must not carry a user or password"},
		"plain http scheme":   {"  channels:\n    ops: {type: slack, url: \"ftp://h.example.com\"}\n  rules: []\n", "must be an absolute http:// or https:// URL"},
		"port out of range":   {"  channels:\n    ops: {type: webhook, url: \"http://127.0.0.1:99999/h\"}\n  rules: []\n", "x.yaml:4: notifications.channels.ops.url: has port 99999; give a port from 1 to 65535"},
		"telegram no chat":    {"  channels:\n    tg: {type: telegram, urlSecret: tg}\n  rules: []\n", "x.yaml:4: notifications.channels.tg.chatId: is required"},
		"signing not webhook": {"  channels:\n    s: {type: slack, url: \"https://h.example.com\", signingSecret: k}\n  rules: []\n", "only webhook, dingtalk and feishu channels sign"},
		"undefined channel":   {ch + "    - {on: failed, channel: nope}\n", `x.yaml:6: notifications.rules[0].channel: "nope" is not defined`},
		"unknown event":       {ch + "    - {on: exploded, channel: ops}\n", `x.yaml:6: notifications.rules[0].on: "exploded" is not one of succeeded, finished, failed`},
		"no event":            {ch + "    - {channel: ops}\n", "x.yaml:6: notifications.rules[0]: needs on: EVENT (succeeded, finished, failed, timed_out, lost, skipped, recovered) or consecutive_failures: N"},
		"tasks as one name":   {ch + "    - {on: succeeded, tasks: checkin, channel: ops}\n", "x.yaml:6: notifications.rules[0].tasks must be a list of task names, like tasks: [checkin]"},
		"triggers a mapping":  {ch + "    - {on: failed, triggers: {daily: 1}, channel: ops}\n", "notifications.rules[0].triggers must be a list of trigger names, like triggers: [nightly]"},
		"tasks of a list":     {ch + "    - {on: failed, tasks: [[a]], channel: ops}\n", "notifications.rules[0].tasks[0]"},
		"task name of spaces": {ch + "    - {on: failed, tasks: [Check In], channel: ops}\n", `x.yaml:6: notifications.rules[0].tasks: "Check In" must use lower-case letters`},
		"trigger given twice": {ch + "    - {on: skipped, triggers: [daily, daily], channel: ops}\n", `x.yaml:6: notifications.rules[0].triggers: "daily" is given twice`},
		"reasons off skipped": {ch + "    - {on: failed, reasons: [paused], channel: ops}\n", "x.yaml:6: notifications.rules[0].reasons: only a skipped rule"},
		"unknown reason":      {ch + "    - {on: skipped, reasons: [bored], channel: ops}\n", `"bored" is not a ledger reason`},
		"zero streak":         {ch + "    - {consecutive_failures: 0, channel: ops}\n", "x.yaml:6: notifications.rules[0].consecutive_failures: 0 is outside 1 … 1000"},
		"on consecutive":      {ch + "    - {on: consecutive_failures, channel: ops}\n", "write consecutive_failures: N"},
		"duplicate rule":      {ch + "    - {on: failed, channel: ops}\n    - {on: failed, channel: ops}\n", "x.yaml:7: notifications.rules[1]: the same rule is given twice"},
		"no rules":            {"  channels:\n    ops: {type: slack, url: \"https://h.example.com\"}\n", "x.yaml:3: notifications.rules: is required"},
		"unknown field":       {ch + "    - {on: failed, channel: ops, when: always}\n", `unknown field "when"`},
		"port as text":        {"  channels:\n    m: {type: email, host: h, port: '587', from: a@b.c, to: a@b.c}\n  rules: []\n", "x.yaml:4: notifications.channels.m.port: must be a whole number from 1 to 65535"},
		"port zero":           {"  channels:\n    m: {type: email, host: h, port: 0, from: a@b.c, to: a@b.c}\n  rules: []\n", "notifications.channels.m.port: must be a whole number"},
		"to a mapping":        {"  channels:\n    m: {type: email, host: h, from: a@b.c, to: {a: b}}\n  rules: []\n", "notifications.channels.m.to must be a list of strings"},
		"to not an address":   {"  channels:\n    m: {type: email, host: h, from: a@b.c, to: [ops@example.com, 'ops at example']}\n  rules: []\n", `x.yaml:4: notifications.channels.m.to[1]: "ops at example" is not a mail address`},
		"email with a url":    {"  channels:\n    m: {type: email, url: 'https://h.example', host: h, from: a@b.c, to: a@b.c}\n  rules: []\n", "notifications.channels.m.url: an email channel is sent over SMTP"},
		"host on slack":       {"  channels:\n    s: {type: slack, urlSecret: k, host: h}\n  rules: []\n", "notifications.channels.s.host: only an email channel has host"},
		"gotify no token":     {"  channels:\n    g: {type: gotify, url: 'https://g.example'}\n  rules: []\n", "notifications.channels.g.tokenSecret: is required for gotify"},
		"serverchan url":      {"  channels:\n    s: {type: serverchan, url: 'https://sctapi.ftqq.com/SCTx.send'}\n  rules: []\n", "the ServerChan URL carries its SendKey"},
		"output too many":     {"  channels:\n    s: {type: slack, urlSecret: k, output: 51}\n  rules: []\n", "x.yaml:4: notifications.channels.s.output: must be a whole number from 0 to 50"},
		"output as text":      {"  channels:\n    s: {type: slack, urlSecret: k, output: all}\n  rules: []\n", "notifications.channels.s.output: must be a whole number from 0 to 50"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(notifyBase+tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestAChatChannelWithItsTokenInAWrittenURLGetsANote(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte(`project: demo
notifications:
  channels:
    tg: {type: telegram, url: 'https://api.telegram.org/bot1:x/sendMessage', chatId: '1'}
    ding: {type: dingtalk, url: 'https://oapi.dingtalk.com/robot/send?access_token=x'}
    tgs: {type: telegram, urlSecret: tg_url, chatId: '1'}
    hook: {type: webhook, url: 'https://hooks.example.com/q'}
  rules:
    - {on: failed, channel: tg}
`))
	if err != nil {
		t.Fatal(err)
	}
	n, ok := TokenInURLNote(doc)
	if !ok {
		t.Fatal("no note for channels writing a chat service's URL in the file")
	}
	if got, want := n.String(), "urlSecret instead (channels: tg (telegram), ding (dingtalk))"; !strings.HasSuffix(got, want) {
		t.Errorf("note %q, want it to end %q (a channel naming a secret, and a generic webhook, get none)", got, want)
	}
}

func TestAProjectCreatedWithNotificationsSaysSo(t *testing.T) {
	t.Parallel()
	svc := catalog.Service{Executor: task.LocalProcess, NowMs: func() int64 { return 1_790_000_000_000 }}
	for _, c := range []struct{ file, plan string }{
		{notifyBase + "  channels:\n    ops: {type: webhook, url: 'https://hooks.example.com/q'}\n  rules:\n    - {on: failed, channel: ops}\n",
			"project demo: would create with notifications"},
		{"project: demo\n", "project demo: would create"},
	} {
		doc, err := Parse("x.yaml", []byte(c.file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Plan(t.Context(), svc, nil, doc, ids.New)
		if err != nil {
			t.Fatal(err)
		}
		if got := res[0].Planned(); got != c.plan {
			t.Errorf("dry run %q, want %q", got, c.plan)
		}
		if got, want := res[0].String(), strings.Replace(c.plan, "would create", "created", 1); got != want {
			t.Errorf("apply %q, want %q", got, want)
		}
	}
}

// The secrets an email, gotify, pushplus or serverchan channel names are
// among those a file names, so `ql apply` notes the ones the secrets file
// lacks before a delivery fails for them.
func TestTheNewChannelsSecretsAreAmongThoseAFileNames(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte(notifyBase+`  channels:
    mail: {type: email, host: smtp.qq.com, from: a@qq.com, to: b@example.com, username: a@qq.com, passwordSecret: qq_smtp}
    phone: {type: gotify, urlSecret: gotify_url, tokenSecret: gotify_app}
    sct: {type: serverchan, tokenSecret: sendkey}
  rules:
    - {on: failed, channel: mail}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(SecretRefs(doc), " "); got != "qq_smtp gotify_url gotify_app sendkey" {
		t.Fatalf("the file names the secrets %q, want qq_smtp gotify_url gotify_app sendkey", got)
	}
}

// Every rule is checked for what it says of itself even after a channel or
// an earlier rule failed: one try shows each rule's mistake at its line,
// and a rule naming a channel is not also called undefined when the
// channels were not read whole.
func TestEveryNotificationRulesOwnMistakeIsReportedAtOnce(t *testing.T) {
	t.Parallel()
	file := notifyBase +
		"  channels:\n" +
		"    hook: {type: pager, url: \"https://h.example.com\"}\n" +
		"  rules:\n" +
		"    - {on: failed, channel: hook}\n" +
		"    - {on: explode, channel: hook}\n" +
		"    - {on: skipped, reasons: [bogus], channel: hook}\n" +
		"    - {on: failed, reasons: [paused], channel: hook}\n"
	_, err := Parse("x.yaml", []byte(file))
	requireErrors(t, err, 0,
		place{4, 11, `notifications.channels.hook.type: "pager" is not one of`},
		place{7, 7, `notifications.rules[1].on: "explode" is not one of`},
		place{8, 7, `notifications.rules[2].reasons: "bogus" is not a ledger reason`},
		place{9, 7, `notifications.rules[3].reasons: only a skipped rule`},
	)
}

// A channel whose name and settings are both mistaken (a Chinese name,
// which a channel's name cannot be, and a misspelt type) is refused for
// both in one try, not for its name and then, once that is mended, for
// its type.
func TestAChannelsMistakenNameAndSettingAreReportedAtOnce(t *testing.T) {
	t.Parallel()
	file := notifyBase +
		"  channels:\n" +
		"    钉钉: {type: webhok, url: \"https://h.example.com\"}\n" +
		"  rules:\n" +
		"    - {on: failed, channel: 钉钉}\n"
	_, err := Parse("x.yaml", []byte(file))
	requireErrors(t, err, 0,
		place{4, 9, `notifications.channels name: "钉钉"`},
		place{4, 9, `notifications.channels.钉钉.type: "webhok" is not one of`},
	)
}
