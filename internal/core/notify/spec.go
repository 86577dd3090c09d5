// Package notify is the notification of Runs' ends: a project's rules and
// channels, the outbox rows a finished Run produces (written by the stores in the
// transaction that finishes the Run), the request body of each channel
// kind, and the delivery loop that sends pending rows.
package notify

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/digest"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Event is what a rule fires on.
type Event string

// The events of a rule.
const (
	OnSucceeded           Event = "succeeded"
	OnFinished            Event = "finished"
	OnFailed              Event = "failed"
	OnTimedOut            Event = "timed_out"
	OnLost                Event = "lost"
	OnSkipped             Event = "skipped"
	OnRecovered           Event = "recovered"
	OnConsecutiveFailures Event = "consecutive_failures"
)

// Events lists every event in the order the documentation gives them.
var Events = []Event{OnSucceeded, OnFinished, OnFailed, OnTimedOut, OnLost, OnSkipped, OnRecovered, OnConsecutiveFailures}

// Kind is a channel's body format.
type Kind string

// The channel kinds.
const (
	Webhook  Kind = "webhook"
	Telegram Kind = "telegram"
	DingTalk Kind = "dingtalk"
	WeCom    Kind = "wecom"
	Feishu   Kind = "feishu"
	Bark     Kind = "bark"
	Ntfy     Kind = "ntfy"
	Slack    Kind = "slack"
	// Email is sent over SMTP, not HTTP: see Mail.
	Email      Kind = "email"
	Gotify     Kind = "gotify"
	PushPlus   Kind = "pushplus"
	ServerChan Kind = "serverchan"
)

// Kinds lists every channel kind.
var Kinds = []Kind{Webhook, Telegram, DingTalk, WeCom, Feishu, Bark, Ntfy, Slack, Email, Gotify, PushPlus, ServerChan}

// tokenKinds are the kinds that take a tokenSecret: a bearer token
// (webhook, ntfy), Gotify's application token, PushPlus's token and
// ServerChan's SendKey.
var tokenKinds = []Kind{Webhook, Ntfy, Gotify, PushPlus, ServerChan}

// Limits of a project's notification settings.
const (
	MaxChannels          = 32
	MaxRules             = 64
	MaxConsecutive       = 1000
	maxURLLen            = 2048
	maxSecretRefLen      = 128
	maxChatIDLen         = 64
	maxSkippedReasonsLen = 16
	// MaxScope is how many tasks, and how many triggers, one rule names.
	MaxScope = 64
)

// Channel is where a rule's notifications go. The URL is given either in
// the definitions (URL) or, because most chat services put their token in
// it, by the name of a secret holding it (URLSecret). SigningSecret names
// the secret whose value signs a webhook body, or a DingTalk or Feishu
// request as those services check; TokenSecret the service's token (a
// bearer token, Gotify's application token, PushPlus's token,
// ServerChan's SendKey). An email channel has no URL: it names its SMTP
// server and the mail's addresses, and PasswordSecret the secret holding
// its login's password. Only secret names are stored, never values.
type Channel struct {
	Name          string `json:"name"`
	Kind          Kind   `json:"kind"`
	URL           string `json:"url,omitempty"`
	URLSecret     string `json:"urlSecret,omitempty"`
	SigningSecret string `json:"signingSecret,omitempty"`
	TokenSecret   string `json:"tokenSecret,omitempty"`
	ChatID        string `json:"chatId,omitempty"`
	// An email channel's SMTP submission, as written: Port 0 and TLS ""
	// take their defaults at delivery (MailPort, MailTLS), so the stored
	// settings are what the file says.
	Host           string   `json:"host,omitempty"`
	Port           int      `json:"port,omitempty"`
	TLS            string   `json:"tls,omitempty"`
	From           string   `json:"from,omitempty"`
	To             []string `json:"to,omitempty"`
	Username       string   `json:"username,omitempty"`
	PasswordSecret string   `json:"passwordSecret,omitempty"`
	// Output is how many of the last lines of a finished Run's output
	// its notifications quote (0: none; at most MaxOutputLines). Output
	// leaves the installation for the channel's service, so it is asked
	// for channel by channel.
	Output int `json:"output,omitempty"`
	// Language is the language of the text the receiver shows (English,
	// "" as well, or Chinese), and TimeZone the IANA zone its times are
	// shown in ("": as the payload holds them, in UTC). Neither changes a
	// webhook's payload, whose fields are for programs.
	Language string `json:"language,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// Rule sends a notification to Channel when a Run of the project meets
// On. Reasons filters skipped (ledger reasons; empty: every reason);
// Count is the streak of consecutive_failures. Tasks and Triggers scope
// the rule to the Runs (and ledger entries) of the tasks and triggers they
// name, by name within the project; a rule naming neither covers the whole
// project.
type Rule struct {
	On       Event    `json:"on"`
	Channel  string   `json:"channel"`
	Reasons  []string `json:"reasons,omitempty"`
	Count    int      `json:"count,omitempty"`
	Tasks    []string `json:"tasks,omitempty"`
	Triggers []string `json:"triggers,omitempty"`
	// Stored is Key() in the stored form, so the statements that write
	// skipped notifications in SQL read it instead of computing it.
	Stored string `json:"key,omitempty"`
}

// Key identifies a rule within its project by content: the same rule keeps
// its key when other rules are added or reordered, so deduplication per
// rule and Run survives an edit of the file. The scope is part of it only
// when the rule has one, so a rule of the whole project keeps the key it
// was stored with before rules had scopes.
func (r Rule) Key() string {
	b := digest.New("qinglong.notify.rule.v1").String("on", string(r.On)).String("channel", r.Channel).
		Strings("reasons", r.Reasons).Int("count", int64(r.Count))
	if r.Scoped() {
		b = b.Strings("tasks", r.Tasks).Strings("triggers", r.Triggers)
	}
	return b.Sum()
}

// Scoped reports whether the rule names tasks or triggers.
func (r Rule) Scoped() bool { return len(r.Tasks) > 0 || len(r.Triggers) > 0 }

// Covers reports whether the rule is told of a Run (or ledger entry) of
// task and trigger ("" for a Run without a trigger): every one for a rule
// without a scope, else those of a task or of a trigger it names.
func (r Rule) Covers(task, trigger string) bool {
	return !r.Scoped() || contains(r.Tasks, task) || (trigger != "" && contains(r.Triggers, trigger))
}

// Spec is a project's notification settings.
type Spec struct {
	Channels []Channel `json:"channels"`
	Rules    []Rule    `json:"rules"`
}

// Empty reports whether the spec sends nothing.
func (s Spec) Empty() bool { return len(s.Rules) == 0 && len(s.Channels) == 0 }

// Channel returns the named channel.
func (s Spec) Channel(name string) (Channel, bool) {
	for _, c := range s.Channels {
		if c.Name == name {
			return c, true
		}
	}
	return Channel{}, false
}

// The reasons of the settings' refusals of their own (their fields' sets
// and sizes carry validate's), with the params their sentences may name.
const (
	// RefusalChannelNoURL is a channel with neither url nor urlSecret:
	// field.
	RefusalChannelNoURL qlerror.Reason = "notify_channel_no_url"
	// RefusalChannelURLAndSecret is a channel with both: field.
	RefusalChannelURLAndSecret qlerror.Reason = "notify_channel_url_and_secret"
	// RefusalChannelURL is a url that is no absolute http(s) URL without
	// credentials, of at most limit characters: field, limit.
	RefusalChannelURL qlerror.Reason = "notify_channel_url"
	// RefusalSecretName is a secret name of other characters: field,
	// value, limit.
	RefusalSecretName qlerror.Reason = "notify_secret_name"
	// RefusalSigningNotWebhook is a signingSecret on a channel that is
	// neither webhook, dingtalk nor feishu: field.
	RefusalSigningNotWebhook qlerror.Reason = "notify_signing_not_webhook"
	// RefusalTokenNotWebhook is a tokenSecret on a channel that takes
	// none (none of webhook, ntfy, gotify, pushplus, serverchan): field.
	RefusalTokenNotWebhook qlerror.Reason = "notify_token_not_webhook"
	// RefusalTokenRequired is a gotify or pushplus channel without its
	// tokenSecret: field, kind.
	RefusalTokenRequired qlerror.Reason = "notify_token_required" //nolint:gosec // G101: a reason code, not a credential
	// RefusalServerChanKey is a serverchan channel that does not name
	// exactly one of tokenSecret (the SendKey) and urlSecret (the whole
	// URL), or writes its url, which carries the SendKey: field.
	RefusalServerChanKey qlerror.Reason = "notify_serverchan_key"
	// RefusalMailURL is a url or urlSecret on an email channel: field.
	RefusalMailURL qlerror.Reason = "notify_mail_url"
	// RefusalMailFieldNotEmail is an email channel's field (host, port,
	// tls, from, to, username, passwordSecret) on another: field.
	RefusalMailFieldNotEmail qlerror.Reason = "notify_mail_field_not_email"
	// RefusalMailHost is a host that is no host name or IP address:
	// field, value.
	RefusalMailHost qlerror.Reason = "notify_mail_host"
	// RefusalMailPortTLS is port 465, which speaks TLS from its first
	// byte, with tls starttls or none: field, value.
	RefusalMailPortTLS qlerror.Reason = "notify_mail_port_tls"
	// RefusalMailAddress is a from or to that is no mail address: field,
	// value.
	RefusalMailAddress qlerror.Reason = "notify_mail_address"
	// RefusalMailLogin is a username without a passwordSecret or the
	// other way round: field.
	RefusalMailLogin qlerror.Reason = "notify_mail_login"
	// RefusalMailPlainLogin is a login on a channel of tls: none, which
	// would send the password unencrypted: field.
	RefusalMailPlainLogin qlerror.Reason = "notify_mail_plain_login"
	// RefusalMailUsernameLine is a username holding a CR or LF, which
	// would end the SMTP command it is sent in: field.
	RefusalMailUsernameLine qlerror.Reason = "notify_mail_username_line"
	// RefusalChatIDRequired is a telegram channel without chatId: field.
	RefusalChatIDRequired qlerror.Reason = "notify_chat_id_required"
	// RefusalChatIDNotTelegram is a chatId on another channel: field.
	RefusalChatIDNotTelegram qlerror.Reason = "notify_chat_id_not_telegram"
	// RefusalChatID is a chatId of other characters: field, value.
	RefusalChatID qlerror.Reason = "notify_chat_id"
	// RefusalRuleTwice is a rule given twice: field.
	RefusalRuleTwice qlerror.Reason = "notify_rule_twice"
	// RefusalChannelUndefined is a rule naming no channel of the
	// settings: field, value.
	RefusalChannelUndefined qlerror.Reason = "notify_channel_undefined"
	// RefusalReasonsNotSkipped is reasons on a rule other than skipped:
	// field.
	RefusalReasonsNotSkipped qlerror.Reason = "notify_reasons_not_skipped"
)

// SkippedReasons are the occurrence-ledger reasons a skipped rule may name:
// every reason the ledger records (schedule.PassReasons, which imports
// this package), so any entry a rule without reasons is told of can be
// told of alone.
var SkippedReasons = []string{"misfire", "collapsed", "catch_up_window", "paused", "outside_bounds", "disabled", "overlap", "republished", "project_archived", "clock_went_back", "restored"}

var chatID = regexp.MustCompile(`^-?[A-Za-z0-9_@]+$`)

// Validate checks every channel and rule; messages name the field.
func (s Spec) Validate() error {
	if len(s.Channels) > MaxChannels {
		return qlerror.New(qlerror.Invalid, "notifications.channels: %d channels, the limit is %d", len(s.Channels), MaxChannels).
			Because(validate.RefusalTooMany, "field", "notifications.channels", "count", len(s.Channels), "limit", MaxChannels)
	}
	if len(s.Rules) > MaxRules {
		return qlerror.New(qlerror.Invalid, "notifications.rules: %d rules, the limit is %d", len(s.Rules), MaxRules).
			Because(validate.RefusalTooMany, "field", "notifications.rules", "count", len(s.Rules), "limit", MaxRules)
	}
	seen := map[string]bool{}
	for _, c := range s.Channels {
		if seen[c.Name] {
			return qlerror.New(qlerror.Invalid, "notifications.channels: %q is given twice", c.Name).
				Because(validate.RefusalGivenTwice, "field", "notifications.channels", "value", c.Name)
		}
		seen[c.Name] = true
		if err := c.Validate(); err != nil {
			return err
		}
	}
	keys := map[string]bool{}
	// A rule's lists have no order: the same names in another order are
	// the same rule.
	normal := s.Normalize().Rules
	for i, r := range s.Rules {
		if err := r.validate(fmt.Sprintf("notifications.rules[%d]", i), seen); err != nil {
			return err
		}
		if keys[normal[i].Stored] {
			return qlerror.New(qlerror.Invalid, "notifications.rules[%d]: the same rule is given twice", i).
				Because(RefusalRuleTwice, "field", fmt.Sprintf("notifications.rules[%d]", i))
		}
		keys[normal[i].Stored] = true
	}
	return nil
}

// Validate checks one channel: its name, then its settings.
func (c Channel) Validate() error {
	if err := validate.Name("notifications.channels name", c.Name); err != nil {
		return err
	}
	return c.ValidateSettings()
}

// ValidateSettings checks a channel's settings whatever its name, so that
// a file's parser says a mistaken name and a mistaken setting in one try.
func (c Channel) ValidateSettings() error {
	field := "notifications.channels." + c.Name
	if !contains(Kinds, c.Kind) {
		return qlerror.New(qlerror.Invalid, "%s.type: %q is not one of %s", field, c.Kind, joinKinds()).
			Because(validate.RefusalNotOneOf, "field", field+".type", "value", c.Kind, "allowed", joinKinds())
	}
	if err := c.validateURL(field); err != nil {
		return err
	}
	if err := c.validateWording(field); err != nil {
		return err
	}
	for _, k := range []struct{ key, value string }{
		{"urlSecret", c.URLSecret}, {"signingSecret", c.SigningSecret}, {"tokenSecret", c.TokenSecret}, {"passwordSecret", c.PasswordSecret},
	} {
		if k.value != "" && (len(k.value) > maxSecretRefLen || !task.IsSecretName(k.value)) {
			return qlerror.New(qlerror.Invalid, "%s.%s: %q is not a secret name (letters, digits, '_', '.', '-', after PROJECT/ for a project's own, at most %d)", field, k.key, k.value, maxSecretRefLen).
				Because(RefusalSecretName, "field", field+"."+k.key, "value", k.value, "limit", maxSecretRefLen)
		}
	}
	if c.SigningSecret != "" && c.Kind != Webhook && c.Kind != DingTalk && c.Kind != Feishu {
		return qlerror.New(qlerror.Invalid, "%s.signingSecret: only webhook, dingtalk and feishu channels sign their requests; remove it", field).
			Because(RefusalSigningNotWebhook, "field", field+".signingSecret")
	}
	switch {
	case c.TokenSecret != "" && !contains(tokenKinds, c.Kind):
		return qlerror.New(qlerror.Invalid, "%s.tokenSecret: only webhook, ntfy, gotify, pushplus and serverchan channels send a token; remove it", field).
			Because(RefusalTokenNotWebhook, "field", field+".tokenSecret")
	case c.TokenSecret == "" && (c.Kind == Gotify || c.Kind == PushPlus):
		return qlerror.New(qlerror.Invalid, "%s.tokenSecret: is required for %s (the name of the secret holding the %s)", field, c.Kind, tokenWhat[c.Kind]).
			Because(RefusalTokenRequired, "field", field+".tokenSecret", "kind", c.Kind)
	}
	switch {
	case c.Kind == Telegram && c.ChatID == "":
		return qlerror.New(qlerror.Invalid, "%s.chatId: is required for telegram (the chat the bot posts to)", field).
			Because(RefusalChatIDRequired, "field", field+".chatId")
	case c.Kind != Telegram && c.ChatID != "":
		return qlerror.New(qlerror.Invalid, "%s.chatId: only a telegram channel has a chat id; remove it", field).
			Because(RefusalChatIDNotTelegram, "field", field+".chatId")
	case c.ChatID != "" && (len(c.ChatID) > maxChatIDLen || !chatID.MatchString(c.ChatID)):
		return qlerror.New(qlerror.Invalid, "%s.chatId: %q is not a chat id like -1001234567890 or @channel", field, c.ChatID).
			Because(RefusalChatID, "field", field+".chatId", "value", c.ChatID)
	}
	if c.Output < 0 || c.Output > MaxOutputLines {
		return qlerror.New(qlerror.Invalid, "%s.output: %d is outside 0 … %d (the lines of a finished Run's output to quote)", field, c.Output, MaxOutputLines).
			Because(validate.RefusalOutOfRange, "field", field+".output", "value", c.Output, "min", 0, "max", MaxOutputLines)
	}
	if c.Kind == Email {
		return c.validateMail(field)
	}
	if key := c.mailField(); key != "" {
		return qlerror.New(qlerror.Invalid, "%s.%s: only an email channel has %s; remove it", field, key, key).
			Because(RefusalMailFieldNotEmail, "field", field+"."+key)
	}
	return nil
}

// tokenWhat names what a kind's tokenSecret holds.
var tokenWhat = map[Kind]string{Gotify: "application's token", PushPlus: "pushplus token"}

// validateURL checks where a channel's requests go: url or urlSecret for
// the HTTP kinds, except ServerChan, whose URL carries the SendKey and so
// comes from a secret only, and PushPlus, whose URL is known; none for
// email, which names its SMTP server.
func (c Channel) validateURL(field string) error {
	switch {
	case c.Kind == Email && (c.URL != "" || c.URLSecret != ""):
		key := map[bool]string{true: "url", false: "urlSecret"}[c.URL != ""]
		return qlerror.New(qlerror.Invalid, "%s.%s: an email channel is sent over SMTP to its host; remove %s", field, key, key).
			Because(RefusalMailURL, "field", field+"."+key)
	case c.Kind == Email:
		return nil
	case c.Kind == ServerChan && (c.URL != "" || (c.URLSecret == "") == (c.TokenSecret == "")):
		return qlerror.New(qlerror.Invalid, "%s: the ServerChan URL carries its SendKey: name the secret holding the SendKey in tokenSecret "+
			"(or the one holding the whole URL in urlSecret), one of the two, and write no url", field).
			Because(RefusalServerChanKey, "field", field)
	case c.URL == "" && c.URLSecret == "" && c.Kind != PushPlus && c.Kind != ServerChan:
		return qlerror.New(qlerror.Invalid, "%s: needs url, or urlSecret naming the secret that holds the URL (when the URL carries a token)", field).
			Because(RefusalChannelNoURL, "field", field)
	case c.URL != "" && c.URLSecret != "":
		return qlerror.New(qlerror.Invalid, "%s: give url or urlSecret, not both", field).Because(RefusalChannelURLAndSecret, "field", field)
	case c.URL != "":
		if err := CheckURL(c.URL); err != nil {
			return qlerror.New(qlerror.Invalid, "%s.url: %s", field, err).Because(RefusalChannelURL, "field", field+".url", "limit", maxURLLen)
		}
	}
	return nil
}

// CheckURL accepts an absolute http or https URL; the delivery resolves a
// secret URL with it too.
func CheckURL(raw string) error {
	if len(raw) > maxURLLen {
		return fmt.Errorf("%d characters, the limit is %d", len(raw), maxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an absolute http:// or https:// URL")
	}
	if u.User != nil {
		return fmt.Errorf("must not carry a user or password; put credentials in a secret (urlSecret or tokenSecret)")
	}
	return checkPort(u)
}

// checkPort refuses a port no connection can be made to (a number outside
// 1–65535, or not a number): every delivery to it would fail, found only
// once a notification is due.
func checkPort(u *url.URL) error {
	p := u.Port()
	if p == "" {
		return nil
	}
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("has port %s; give a port from 1 to 65535, or none for the scheme's", p)
	}
	return nil
}

// ValidateOwn checks what rule r says of itself alone — its event, its
// reasons, tasks, triggers and count, that it names a channel — and, when
// defined is not nil, that the channel is among those names, not whether
// an earlier rule is the same: a file's every rule is checked so, even
// where its channels or an earlier rule failed (which Validate needs
// whole). defined is the name of every channel given, read whole or not:
// a rule naming a channel whose settings failed is not also refused for
// it, one naming a channel given nowhere is. field names the rule.
func (r Rule) ValidateOwn(field string, defined map[string]bool) error {
	return r.validate(field, defined)
}

// validate checks rule r, named field, against the channels defined (nil:
// not checked, as ValidateOwn does).
func (r Rule) validate(field string, channels map[string]bool) error {
	if !contains(Events, r.On) {
		return qlerror.New(qlerror.Invalid, "%s.on: %q is not one of %s", field, r.On, joinEvents()).
			Because(validate.RefusalNotOneOf, "field", field+".on", "value", r.On, "allowed", joinEvents())
	}
	if r.Channel == "" {
		return qlerror.New(qlerror.Invalid, "%s.channel: is required (a channel named under notifications.channels)", field).
			Because(validate.RefusalRequired, "field", field+".channel")
	}
	if channels != nil && !channels[r.Channel] {
		return qlerror.New(qlerror.Invalid, "%s.channel: %q is not defined under notifications.channels", field, r.Channel).
			Because(RefusalChannelUndefined, "field", field+".channel", "value", r.Channel)
	}
	if len(r.Reasons) > 0 && r.On != OnSkipped {
		return qlerror.New(qlerror.Invalid, "%s.reasons: only a skipped rule filters by reason; remove it", field).
			Because(RefusalReasonsNotSkipped, "field", field+".reasons")
	}
	if len(r.Reasons) > maxSkippedReasonsLen {
		return qlerror.New(qlerror.Invalid, "%s.reasons: too many reasons", field).
			Because(validate.RefusalTooMany, "field", field+".reasons", "count", len(r.Reasons), "limit", maxSkippedReasonsLen)
	}
	for _, reason := range r.Reasons {
		if !contains(SkippedReasons, reason) {
			return qlerror.New(qlerror.Invalid, "%s.reasons: %q is not a ledger reason; use %s", field, reason, strings.Join(SkippedReasons, ", ")).
				Because(validate.RefusalNotOneOf, "field", field+".reasons", "value", reason, "allowed", strings.Join(SkippedReasons, ", "))
		}
	}
	if err := r.validateScope(field); err != nil {
		return err
	}
	switch {
	case r.On == OnConsecutiveFailures && (r.Count < 1 || r.Count > MaxConsecutive):
		return qlerror.New(qlerror.Invalid, "%s.count: consecutive_failures needs count from 1 to %d (the streak that sends one notification)", field, MaxConsecutive)
	case r.On != OnConsecutiveFailures && r.Count != 0:
		return qlerror.New(qlerror.Invalid, "%s.count: only a consecutive_failures rule has a count; remove it", field)
	}
	return nil
}

// validateScope checks the names of the rule's tasks and triggers: each a
// name a task or trigger can have, none given twice.
func (r Rule) validateScope(field string) error {
	for _, sc := range []struct {
		key   string
		names []string
	}{{"tasks", r.Tasks}, {"triggers", r.Triggers}} {
		if len(sc.names) > MaxScope {
			return qlerror.New(qlerror.Invalid, "%s.%s: %d names, the limit is %d", field, sc.key, len(sc.names), MaxScope).
				Because(validate.RefusalTooMany, "field", field+"."+sc.key, "count", len(sc.names), "limit", MaxScope)
		}
		seen := map[string]bool{}
		for _, name := range sc.names {
			if err := validate.Name(field+"."+sc.key, name); err != nil {
				return err
			}
			if seen[name] {
				return qlerror.New(qlerror.Invalid, "%s.%s: %q is given twice", field, sc.key, name).
					Because(validate.RefusalGivenTwice, "field", field+"."+sc.key, "value", name)
			}
			seen[name] = true
		}
	}
	return nil
}

// Normalize sorts what has no order (channels by name, reasons, a rule's
// tasks and triggers) so equal settings encode equally.
func (s Spec) Normalize() Spec {
	out := Spec{Channels: append([]Channel(nil), s.Channels...), Rules: make([]Rule, len(s.Rules))}
	sort.Slice(out.Channels, func(i, j int) bool { return out.Channels[i].Name < out.Channels[j].Name })
	for i, r := range s.Rules {
		r.Reasons = append([]string(nil), r.Reasons...)
		sort.Strings(r.Reasons)
		r.Tasks, r.Triggers = sorted(r.Tasks), sorted(r.Triggers)
		r.Stored = r.Key()
		out.Rules[i] = r
	}
	return out
}

// Encode is the canonical stored form; "" for settings that send nothing,
// so a project without notifications stores none.
func (s Spec) Encode() string {
	if s.Empty() {
		return ""
	}
	b, err := json.Marshal(s.Normalize())
	if err != nil {
		panic(fmt.Sprintf("notify: encode spec: %v", err))
	}
	return string(b)
}

// Decode reads a stored spec; "" is none.
func Decode(s string) (Spec, error) {
	var out Spec
	if s == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return out, qlerror.Wrap(qlerror.Internal, err, "stored notification settings are not valid JSON")
	}
	return out, nil
}

// sorted is a sorted copy of names; nil for none, so a rule without a
// scope encodes as it did before rules had one.
func sorted(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	out := append([]string(nil), names...)
	sort.Strings(out)
	return out
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func joinKinds() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func joinEvents() string {
	s := make([]string, len(Events))
	for i, e := range Events {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}
