package console

import (
	"strings"
	"testing"
)

// Every stop note QingLong writes into a log (each cause an executor or
// the worker gives, each way the command ended) is said whole in Chinese,
// with the durations it names; an English page shows the note's own
// words; a note whose why is not one QingLong writes stays English whole.
func TestEveryStopNoteReadsWholeInChinese(t *testing.T) {
	for _, c := range []struct{ why, how, zh string }{
		{"the run was asked to cancel", "SIGTERM; it ended within the kill grace of 10s", "[青龙：命令已被停止：运行被要求取消（已发送 SIGTERM，它在 10s 的终止宽限期内结束）]\n"},
		{"its timeout of 1m30s passed", "SIGTERM, then SIGKILL after the kill grace of 5s", "[青龙：命令已被停止：超过了它的超时时间 1m30s（先发送 SIGTERM，终止宽限期 5s 过后发送 SIGKILL）]\n"},
		{"the server is stopping", "SIGTERM, then SIGKILL without waiting out the kill grace", "[青龙：命令已被停止：服务器正在停止（先发送 SIGTERM，未等终止宽限期结束即发送 SIGKILL）]\n"},
		{"the worker is stopping", "it had ended already", "[青龙：命令已被停止：执行节点正在停止（它已经结束了）]\n"},
		{"the lease could not be renewed in time", "it had ended already", "[青龙：命令已被停止：未能及时续租（它已经结束了）]\n"},
		{"the replica declared the attempt over", "it had ended already", "[青龙：命令已被停止：副本宣布该尝试已结束（它已经结束了）]\n"},
	} {
		line := "[qinglong: the command was stopped: " + c.why + " (" + c.how + ")]\n"
		if got := stopNote("zh", line); got != c.zh {
			t.Errorf("%q in Chinese: %q, want %q", line, got, c.zh)
		}
		if got := stopNote("en", line); got != line {
			t.Errorf("%q in English: %q, want it as it is", line, got)
		}
	}
	unknown := "[qinglong: the command was stopped: stop requested: moved (it had ended already)]\n"
	if got := stopNote("zh", unknown); got != unknown {
		t.Errorf("a note of an unknown cause in Chinese: %q, want its English whole", got)
	}
}

// Only a log's last line is taken for its stop note, and only a whole one:
// the same words earlier in the output, or on a line the command left
// open, stay the command's output.
func TestOnlyAStopNoteEndingTheLogIsSplitOff(t *testing.T) {
	note := "[qinglong: the command was stopped: the run was asked to cancel (it had ended already)]\n"
	for _, c := range []struct{ what, text, output, stop string }{
		{"a note after output", "line 1\nline 2\n" + note, "line 1\nline 2\n", note},
		{"a note alone", note, "", note},
		{"a note the output goes on after", note + "more\n", note + "more\n", ""},
		{"the words on the line of the output", "line 1 " + note, "line 1 " + note, ""},
		{"a note cut short", "line 1\n" + strings.TrimSuffix(note, "\n"), "line 1\n" + strings.TrimSuffix(note, "\n"), ""},
		{"no note", "line 1\n", "line 1\n", ""},
	} {
		if output, stop := splitStop(c.text); output != c.output || stop != c.stop {
			t.Errorf("%s: split into %q and %q, want %q and %q", c.what, output, stop, c.output, c.stop)
		}
	}
}
