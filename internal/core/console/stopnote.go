package console

import (
	"regexp"
	"strings"
)

// stopLine is the line QingLong writes last into the log of a command it
// stopped (process.StoppedLine): why it stopped it, and how. The log
// keeps it in English, as it keeps every line; the Run's page says it in
// its own language.
var stopLine = regexp.MustCompile(`^\[qinglong: the command was stopped: (.+) \(([^()]+)\)\]\n$`)

// leftLine is the line QingLong writes last into the log of a command
// whose main process ended while processes it started still ran
// (process.LeftRunningLine): how many, and how they were ended.
var leftLine = regexp.MustCompile(`^\[qinglong: the command's main process ended, leaving (\d+) process(?:es)? it started running; (?:they were|it was) ended \(([^()]+)\): ` +
	`a Run ends with its main process, so run a service under a service manager, not as a task\]\n$`)

// stopWord is one way a stop note says why or how: the English it is
// written in, and what a page in another language shows for it ($1: the
// duration the English names).
type stopWord struct {
	en   *regexp.Regexp
	says string
}

// stopWhys and stopHows say in the languages other than English why
// QingLong stopped a command (internal/core/process's …Cause, which the
// executors and the worker stop commands with) and how
// (process.Endings); stopFrames put the two in that language's note.
var (
	stopWhys = map[string][]stopWord{"zh": {
		{regexp.MustCompile(`^its timeout of (\S+) passed$`), "超过了它的超时时间 $1"},
		{regexp.MustCompile(`^the run was asked to cancel$`), "运行被要求取消"},
		{regexp.MustCompile(`^the server is stopping$`), "服务器正在停止"},
		{regexp.MustCompile(`^the worker is stopping$`), "执行节点正在停止"},
		{regexp.MustCompile(`^the lease could not be renewed in time$`), "未能及时续租"},
		{regexp.MustCompile(`^the replica declared the attempt over$`), "副本宣布该尝试已结束"},
	}}
	stopHows = map[string][]stopWord{"zh": {
		{regexp.MustCompile(`^it had ended already$`), "它已经结束了"},
		{regexp.MustCompile(`^SIGTERM; it ended within the kill grace of (\S+)$`), "已发送 SIGTERM，它在 $1 的终止宽限期内结束"},
		{regexp.MustCompile(`^SIGTERM; they ended within the kill grace of (\S+)$`), "已发送 SIGTERM，它们在 $1 的终止宽限期内结束"},
		{regexp.MustCompile(`^SIGTERM, then SIGKILL after the kill grace of (\S+)$`), "先发送 SIGTERM，终止宽限期 $1 过后发送 SIGKILL"},
		{regexp.MustCompile(`^SIGTERM, then SIGKILL without waiting out the kill grace$`), "先发送 SIGTERM，未等终止宽限期结束即发送 SIGKILL"},
	}}
	stopFrames = map[string]string{"zh": "[青龙：命令已被停止：{why}（{how}）]\n"}
	// leftFrames say leftLine in that language ({n}: how many).
	leftFrames = map[string]string{"zh": "[青龙：命令的主进程已结束，它启动的 {n} 个进程仍在运行，已被结束（{how}）：运行随主进程结束，服务请交给服务管理器运行，不要作为任务]\n"}
)

// splitStop splits an ended log's text (logText) into the command's
// output and the stop note it ends with; stop is "" when its last line is
// no stop note.
func splitStop(text string) (output, stop string) {
	last := strings.LastIndexByte(strings.TrimSuffix(text, "\n"), '\n') + 1
	if !stopLine.MatchString(text[last:]) && !leftLine.MatchString(text[last:]) {
		return text, ""
	}
	return text[:last], text[last:]
}

// stopNote is stop note line in language l: the note's own English on an
// English page, and on any page whose language lacks a word for its why
// or its how, rather than a note half translated.
func stopNote(l, line string) string {
	if m := leftLine.FindStringSubmatch(line); m != nil {
		how, ok := stopSays(stopHows[l], m[2])
		if !ok || leftFrames[l] == "" {
			return line
		}
		return strings.NewReplacer("{n}", m[1], "{how}", how).Replace(leftFrames[l])
	}
	m := stopLine.FindStringSubmatch(line)
	if m == nil {
		return line
	}
	why, ok := stopSays(stopWhys[l], m[1])
	if !ok {
		return line
	}
	how, ok := stopSays(stopHows[l], m[2])
	if !ok {
		return line
	}
	return strings.NewReplacer("{why}", why, "{how}", how).Replace(stopFrames[l])
}

// stopSays is what words say for s: the first word whose English s is.
func stopSays(words []stopWord, s string) (string, bool) {
	for _, w := range words {
		if m := w.en.FindStringSubmatchIndex(s); m != nil {
			return string(w.en.ExpandString(nil, w.says, s, m)), true
		}
	}
	return "", false
}
