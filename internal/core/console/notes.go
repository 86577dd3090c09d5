package console

import (
	"context"
	"fmt"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// noteLanguage says the notes about a valid file in a language other than
// English (an English page shows the note's own sentence, which `ql apply`
// prints). A sentence's {items} is the list of the objects the note is
// about, each said by item with its params ({name}, {jitter}, {period}),
// joined by sep, with more for those the note counts but does not name.
type noteLanguage struct {
	sep, more string
	sentences map[apply.NoteReason]noteWords
	// causes say why a secrets file cannot be used ({why} of an
	// unusable-secrets note), by cause, with the note's params.
	causes map[process.SecretsCause]string
}

// noteWords are a note's sentence and how it says each item; follows,
// where set, says an item that carries a task (a trigger following the
// task the file changes).
type noteWords struct{ sentence, item, follows string }

var notes = map[string]noteLanguage{
	"zh": {sep: "、", more: "，另有 %d 个", sentences: map[apply.NoteReason]noteWords{
		apply.NotePlacementIgnored: {
			sentence: "放置（placement）会被保存，但不会生效：此单节点服务器在本机执行每次运行（任务：{items}）。",
			item:     "{name}"},
		apply.NoteCommandMissing: {
			sentence: "这些任务运行的程序在本机上不存在，因此它们的每次运行都会失败（spawn_failed），直到程序存在为止：请在本机安装它，或在文件中改正路径（任务：{items}）。",
			item:     "{name}（{path}）"},
		apply.NoteJitterPastPeriod: {
			sentence: "抖动（jitter）长于两次发生之间的间隔时，后一次发生会在前一次被接纳之前到期，并像错过的发生一样处理（fire_once 将其合并，skip 将其跳过），" +
				"触发器因此比 cron 所写的运行得少；请让抖动短于 cron 的周期（触发器：{items}）。",
			item: "{name}（抖动 {jitter}，两次发生相隔 {period}）"},
		apply.NoteSecretsMissing: {
			sentence: "密钥文件（数据目录中的 qinglong-secrets.json）还没有定义 {items}：请在运行或通知用到它们之前在“密钥”页面逐个设置，否则会失败。",
			item:     "{name}"},
		apply.NoteEndedTriggers: {
			sentence: "这些触发器在其 endAt 之前已没有剩余的发生，因此不会再触发；请把 endAt 往后移，或去掉它（触发器：{items}）。",
			item:     "{name}（endAt {end}）"},
		apply.NoteUnlistedTriggers: {
			sentence: "此项目中文件没有写到的已启用触发器会照常运行：文件中省略一个触发器并不会删除它（改名的触发器也会以旧名继续运行）；" +
				"要停用一个，请以 enabled: false 应用它，或在它的页面上停用它（触发器：{items}）。",
			item: "{name}", follows: "{name}（随任务 {task} 转到此文件发布的新修订版）"},
		apply.NoteTokenInURL: {
			sentence: "聊天服务的 URL 中带有它的令牌，而写在文件中的 url 会存入数据库，并随定义一起显示；请把 URL 放进密钥，改用 urlSecret 指明（渠道：{items}）。",
			item:     "{channel}（{kind}）"},
		apply.NoteWorkerSecrets: {
			sentence: "这些任务用到密钥，却没有设置放置（placement），它们的运行可能交给任何一个工作节点，而密钥文件中没有定义其中某个密钥的工作节点会让运行失败（secret_unavailable）：" +
				"请在每个可能接手这些任务的工作节点的主机上用 `ql-worker secrets set NAME --secrets-file FILE` 定义它们，" +
				"或用 placement.labels 把每个任务固定到持有这些密钥并带有这些标签（工作节点的 --labels）的工作节点上（任务：{items}）。",
			item: "{name}（密钥：{secrets}）"},
		apply.NoteDaysEither: {
			sentence: "这些触发器同时限定了日（day-of-month）和星期（day-of-week），因此在符合其中任一个的日子触发（与 Kubernetes CronJob 相同）；" +
				"写作“*”或“?”（单独、写作“*/1”或在列表中）的日字段把日子交给另一个字段决定（触发器：{items}）。",
			item: "{name}（日“{dom}”或星期“{dow}”）"},
		apply.NoteDaysVixieBoth: {
			sentence: "这些触发器同时限定了日（day-of-month）和星期（day-of-week），因此在符合其中任一个的日子触发；" +
				"Vixie cron（crontab）把以“*”开头的日字段（如“*/2”）视为不限定，只在两者都符合的日子触发它们。" +
				"这里没有能要求两者都符合的表达式：请在表达式中只保留一个日字段，另一个写“*”，由命令自己检查那个日子条件，不符合时直接退出（触发器：{items}）。",
			item: "{name}（日“{dom}”或星期“{dow}”）"},
		apply.NotePanelTaskCommand: {
			sentence: "这些任务运行 task 脚本，这是青龙面板的命令，这里没有，因此它们的每次运行都会以“task: not found”（退出码 127）失败：" +
				"请写出解释器和脚本的路径（node /ql/scripts/jd_bean_sign.js、python3 -u /ql/scripts/check.py），或把 workingDir 设为脚本所在的目录，再运行 node jd_bean_sign.js（任务：{items}）。",
			item: "{name}"},
		apply.NotePythonBuffered: {
			sentence: "这些任务运行 Python：它向管道写输出时按几 KiB 的块缓冲，因此在块写满或脚本结束之前，实时日志一直是空的：" +
				"请用 python3 -u 运行，或在任务的 env 中设置 PYTHONUNBUFFERED: \"1\"（任务：{items}）。",
			item: "{name}"},
		apply.NoteUnknownQLVariable: {
			sentence: "这些任务的脚本读取了青龙不设置的 QL_ 变量，它在每次运行中都是空的（任务的 env 也不能设置这样的变量）：" +
				"青龙设置的是 " + strings.Join(run.EnvNames(), "、") + "；请改写成想用的那一个（任务：{items}）。",
			item: "{name}（${variable}；最接近的是 {closest}）"},
		apply.NoteSecretsUnusable: {
			sentence: "密钥文件 {file} 无法使用：{why}。在修复之前，用到 {items} 的每次运行或通知都会失败（secret_unavailable）。",
			item:     "{name}"},
	}, causes: map[process.SecretsCause]string{
		process.SecretsDenied:     "服务器的用户无权读取它（{error}）；请让它归该用户所有，权限 0600",
		process.SecretsOwner:      "它属于 uid {owner}，而不是服务器的用户（uid {uid}）；请把它的属主改为 uid {uid}",
		process.SecretsMode:       "组用户或其他用户可以访问它（权限 {mode}）；请把权限改为 600",
		process.SecretsNotRegular: "它不是普通文件；请在该位置放一个“名称 → 值”的 JSON 对象文件，权限 0600",
		process.SecretsNotJSON:    `它不是由字符串值组成的 JSON 对象；若它不是有效的 JSON，请修正其语法，并把每个值都写成带引号的字符串（{"名称": "值"}）`,
	}},
}

// consoleEnglish are the notes an English page words otherwise than `ql
// apply` does: where the command names a command (setting a secret,
// disabling a trigger), the console names its page.
var consoleEnglish = noteLanguage{sep: ", ", more: ", and %d more", sentences: map[apply.NoteReason]noteWords{
	apply.NoteSecretsMissing: {
		sentence: "the secrets file (qinglong-secrets.json in the data directory) does not define {items} yet: " +
			"set each on the Secrets page before a Run or notification needs it, or it fails",
		item: "{name}"},
	apply.NoteUnlistedTriggers: {
		sentence: "enabled triggers of this project that the file does not name keep running: leaving one out of a file does not remove it " +
			"(a renamed trigger runs under its old name too); to retire one, apply it with enabled: false or disable it on its page (triggers: {items})",
		item: "{name}", follows: "{name} (follows task {task} to the revision this file publishes)"},
}}

// noteText is n in language l: its sentence in l with every item's params
// filled in, else the note's English (an English page's, but for those
// consoleEnglish words for the console, and a note of a reason or with a
// param l lacks, rather than a sentence with a hole).
func noteText(l string, n apply.Note) string {
	lw, ok := notes[l]
	if !ok {
		lw = consoleEnglish
	}
	w, known := lw.sentences[n.Reason]
	if !known {
		return n.String()
	}
	complete := true
	fill := func(s string, params map[string]string) string {
		return placeholder.ReplaceAllStringFunc(s, func(m string) string {
			v, ok := params[m[1:len(m)-1]]
			if !ok {
				complete = false
				return m
			}
			return v
		})
	}
	items := make([]string, len(n.Items))
	for i, it := range n.Items {
		item := w.item
		if it["task"] != "" && w.follows != "" {
			item = w.follows
		}
		items[i] = fill(item, it)
	}
	list := strings.Join(items, lw.sep)
	if n.More > 0 {
		list += fmt.Sprintf(lw.more, n.More)
	}
	params := map[string]string{"items": list}
	for k, v := range n.Params {
		params[k] = v
	}
	if n.Reason == apply.NoteSecretsUnusable {
		why, ok := lw.causes[process.SecretsCause(n.Params["cause"])]
		if !ok {
			return n.String()
		}
		params["why"] = fill(why, n.Params)
	}
	s := fill(w.sentence, params)
	if !complete {
		return n.String()
	}
	return s
}

// definitionsNotes are the notes of doc this server can know: retry and
// placement only where it runs every Run itself, secrets only where it
// holds the secrets file of the machine that runs the commands, and the
// secrets every worker must hold only where Runs go to workers; the
// triggers a file leaves out only for a file a user wrote (origin ""): a
// form's file names only what the form shows, by design.
// secrets says whether a note is about the secrets file.
func (c *Console) definitionsNotes(ctx context.Context, l string, doc *apply.Document, results []apply.Result, origin string) (out []string, secrets bool) {
	ns := apply.Notes(doc, apply.NoteScope{RunsHere: c.cfg.Definitions.Executor == task.LocalProcess, OnWorkers: c.cfg.Definitions.Executor == task.RemoteWorker, NowMs: c.cfg.Definitions.NowMs(), MissingSecrets: c.cfg.MissingSecrets, PathMissing: process.PathMissing})
	if origin == "" {
		ns = apply.AddUnlisted(ctx, c.cfg.Export, doc, results, ns)
	}
	out = make([]string, len(ns))
	for i, n := range ns {
		out[i] = noteText(l, n)
		secrets = secrets || n.Reason == apply.NoteSecretsMissing || n.Reason == apply.NoteSecretsUnusable
	}
	return out, secrets
}
