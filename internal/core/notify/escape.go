package notify

import "strings"

// A notification quotes text of a person's choosing — a display title,
// a project's, trigger's or task's name, a command's output — to services
// that read markup in it. Each such service gets it escaped for what that
// service reads, so it shows as written and can neither link, mention nor
// start a heading. The plain-text bodies (Telegram without a parse mode,
// DingTalk, WeCom, Gotify, PushPlus's txt, Bark) and the email take it as
// it is: an escape there would show as written instead of the text.

// markdownEscaper escapes what Markdown reads inside a line: emphasis,
// code, links and images (by their brackets), strikethrough, raw HTML and
// entities, and the escape itself. Every value it escapes follows a fixed
// label on its line ("task: ", "QingLong: "), so what Markdown reads only
// at a line's start (a list's "-", "1.", a table's "|") cannot begin
// there; "#" is escaped all the same, so a heading cannot either.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "!", `\!`, "~", `\~`, "#", `\#`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;")

// markdownPayload is p with every name and title it holds escaped for a
// Markdown body; the output it quotes goes in a fence instead
// (markdownOutput), where Markdown reads nothing.
func markdownPayload(p Payload) Payload {
	for _, s := range []*string{&p.TriggerTitle, &p.ProjectTitle, &p.TaskTitle, &p.Project, &p.Trigger, &p.Task} {
		*s = markdownEscaper.Replace(*s)
	}
	return p
}

// slackEscape escapes what Slack's text reads as markup: a title or an
// output must not become a mention (<!channel>) or a link. Slack reads
// them inside a code block too, so the whole text is escaped.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// feishuText keeps a Feishu text message's tags (<at user_id="all"></at>
// mentions everyone) from being read in what it quotes: Feishu has no
// escape for them, so each "<" is followed by a word joiner, which shows
// as nothing and keeps the tag from being one.
func feishuText(s string) string {
	return strings.ReplaceAll(s, "<", "<\u2060")
}
