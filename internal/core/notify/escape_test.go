package notify

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"
)

// metaTitle is a display title full of what Markdown, HTML and the chat
// services read: a link, an image, emphasis, code, a heading's mark, a tag,
// an entity, Slack's mention and Feishu's.
const metaTitle = "每日签到 [点我](https://evil.example) ![i](x) **粗** _斜_ `c` ~~s~~ #1 <b>x</b> &amp; <!channel> <at user_id=\"all\"></at> \\"

// metaOutput is quoted output holding the same.
const metaOutput = "done [点我](https://evil.example) <!channel>\n<at user_id=\"all\"></at> ``` # end"

// meta is sample with metaTitle and metaOutput.
func meta(kind Kind) Message {
	c, _ := goldenChannel(kind)
	m := sample(c)
	m.Payload.TriggerTitle, m.Payload.Output = metaTitle, metaOutput
	return m
}

// build is m's request body decoded from its JSON.
func build(t *testing.T, m Message) map[string]any {
	t.Helper()
	req, err := Build(m, secrets, sentAt)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("%s body %s: %v", m.Channel.Kind, req.Body, err)
	}
	return body
}

// markdownUnescape is what a Markdown renderer shows of escaped inline
// text: a backslash before punctuation drops, an entity is its character.
func markdownUnescape(s string) string {
	return html.UnescapeString(regexp.MustCompile(`\\([[:punct:]])`).ReplaceAllString(s, "$1"))
}

// A Markdown body (ServerChan's desp) escapes a title so that what a
// renderer shows is the title as written, and no bracket, tag, entity or
// emphasis of it is left for Markdown to read; the output stays in a fence
// longer than any run of backticks in it.
func TestAMarkdownBodyShowsATitleAsWrittenAndLinksNothing(t *testing.T) {
	desp := build(t, meta(ServerChan))["desp"].(string)
	first, _, _ := strings.Cut(desp, "\n")
	want := "QingLong: " + metaTitle + " · shop/nightly-backup failed 3 times in a row"
	if got := markdownUnescape(first); got != want {
		t.Fatalf("the title line renders as %q, want %q (line %q)", got, want, first)
	}
	unescaped := regexp.MustCompile(`(^|[^\\])[\[\]*_` + "`" + `~#<>!]`)
	if m := unescaped.FindString(strings.ReplaceAll(first, `\\`, "")); m != "" {
		t.Fatalf("the title line %q leaves %q for Markdown to read", first, m)
	}
	if !strings.Contains(first, "&amp;amp;") {
		t.Fatalf("the title line %q: want the entity's & escaped", first)
	}
	if !strings.Contains(desp, "\n````\n"+metaOutput+"\n````") {
		t.Fatalf("desp %q: want the output fenced by four backticks, as it is", desp)
	}
}

// Slack reads <…> as a mention or a link in any part of its text, code
// blocks too: a title's and an output's are escaped, so neither mentions
// the channel nor links.
func TestSlackTextMentionsAndLinksNothingOfATitleOrOutput(t *testing.T) {
	text := build(t, meta(Slack))["text"].(string)
	if strings.ContainsAny(text, "<>") {
		t.Fatalf("slack text %q holds < or >, which Slack reads as a mention or a link", text)
	}
	if !strings.Contains(text, "&lt;!channel&gt;\n&lt;at user_id") || !strings.Contains(text, "&amp;amp;") {
		t.Fatalf("slack text %q: want the output's and the title's markup escaped", text)
	}
}

// A Feishu text message reads <at user_id="all"></at> as a mention of
// everyone: in a title or an output it is broken by a word joiner, which
// shows nothing, so the text reads as written and mentions no one.
func TestFeishuTextMentionsNoOneThroughATitleOrOutput(t *testing.T) {
	text := build(t, meta(Feishu))["content"].(map[string]any)["text"].(string)
	if strings.Contains(text, "<at") {
		t.Fatalf("feishu text %q holds a tag Feishu reads", text)
	}
	if got := strings.ReplaceAll(text, "\u2060", ""); !strings.Contains(got, metaTitle) || !strings.Contains(got, metaOutput) {
		t.Fatalf("feishu text %q does not read as the title and output written", got)
	}
}

// The plain-text bodies read no markup: they carry a title and output
// exactly as written (an escape would show), and Telegram's sets no parse
// mode that would start reading it.
func TestPlainTextBodiesCarryATitleAndOutputAsWritten(t *testing.T) {
	var texts func(v any) string
	texts = func(v any) string {
		switch v := v.(type) {
		case string:
			return v + "\n"
		case map[string]any:
			var b strings.Builder
			for _, e := range v {
				b.WriteString(texts(e))
			}
			return b.String()
		}
		return ""
	}
	for _, kind := range []Kind{Telegram, DingTalk, WeCom, Gotify, PushPlus, Bark} {
		body := build(t, meta(kind))
		all := texts(body)
		if !strings.Contains(all, Title(meta(kind).Payload)+"\n") || !strings.Contains(all, metaOutput) {
			t.Errorf("%s: body %q does not carry the title and the output as written", kind, all)
		}
		if _, ok := body["parse_mode"]; ok {
			t.Errorf("%s body sets parse_mode %v: the text would be read as markup", kind, body["parse_mode"])
		}
	}
}
