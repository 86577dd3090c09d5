package console

import (
	"strings"

	"github.com/qinglong/qinglong/internal/core/run"
)

// attemptEnds say, in the languages other than English, why an attempt
// ended, by the error code it carries. An English page shows the
// attempt's own message, else its code: the message is the reference
// these translate, and the code is what the docs and `ql runs show` name.
// A code with no sentence (a newer server's) is shown as English shows it.
//
//nolint:gosec // G101: sentences keyed by error codes (one names a secret), no credential
var attemptEnds = map[string]map[string]string{
	"zh": {
		// A command that ran and ended on its own (process).
		"exit_nonzero":     "命令以非零退出码结束",
		"killed_by_signal": "命令被一个并非青龙发送的信号终止",
		// A command that was never started; its log says why.
		"spawn_failed":               "命令未能启动：原因见该尝试的输出",
		"run_as_unavailable":         "命令未能启动：runAs 指定的用户不可用",
		"working_dir_unavailable":    "命令未能启动：工作目录不可用",
		"secret_unavailable":         "命令未能启动：它需要的密钥无法读取",
		"execution_revision_invalid": "命令未能启动：存储的执行修订版无效",
		"log_unwritable":             "命令未能启动：无法创建该尝试的输出日志",
		"journal_unwritable":         "命令未能启动：执行节点无法写入它的 journal 日志",
		"attempt_launched_before":    "命令未再次启动：执行节点的 journal 日志记录它此前已启动过这次尝试；数据库丢失了那次启动，通常是因为从更早的备份恢复",
		"grant_digest_mismatch":      "命令未执行：下发的命令与控制面记录的摘要不符",
		// A command that QingLong stopped.
		"timed_out": "命令超过了超时时间，已被停止",
		// timeout: what a standalone timeout was recorded as before
		// timed_out; such attempts keep it.
		"timeout":        "命令超过了超时时间，已被停止",
		"cancelled":      "运行被要求取消，命令已被停止",
		"server_stopped": "服务器停止时命令被终止：无人取消它，可以重新运行",
		"worker_stopped": "执行节点停止时命令被终止：无人取消它",
		// An attempt the store ended itself.
		"executor_lost":                      "命令运行期间服务器意外退出，该尝试已丢失",
		"lease_expired":                      "执行节点不再续租（崩溃、停止或断开连接），该尝试已丢失",
		"lease_expired_after_timeout":        "命令超过了超时时间，且执行节点在报告结束之前租约已到期",
		"lease_expired_replicas_unavailable": "租约到期时各副本无法访问数据库（或均未运行），执行节点的续租被拒绝，该尝试已丢失",
		"worker_revoked":                     "命令运行期间执行节点的凭据被吊销：执行节点遭拒并终止了命令",
		"database_rolled_back":               "数据库回到了比执行节点所知更早的时刻（恢复了备份，或切换到丢失了提交的备库）：续租被拒绝，执行节点终止了命令，该尝试已丢失",
	},
}

// attemptState is the page's word in l for the state of attempt a of a
// Run in state rs. An attempt is stored claimed from the moment its Run is
// queued, before anything takes it, so its word says that it waits to be
// started; only a Run dispatching (a cluster's grant) has its claimed
// attempt granted to a worker that has not started it yet, and says so.
// The stored states stay as they are in the API and in ql runs show.
func attemptState(l string, rs run.State, a run.AttemptState) string {
	if a == run.AttemptClaimed && rs == run.Dispatching {
		return word(l, "attempt", "granted")
	}
	return word(l, "attempt", a)
}

// attemptWhy is the sentence in l for an attempt that ended with code, ""
// when l has none (English, or a code it does not know).
func attemptWhy(l, code string) string {
	return attemptEnds[l][code]
}

// messageShown is how many characters of an attempt's message its row
// shows before folding the rest away: about three lines of a phone's card.
// Most messages are a sentence; a worker's refusal can run to a thousand.
const messageShown = 160

// clipMessage is msg cut to at most messageShown characters, at a space
// when one is near the end, with an ellipsis; "" when msg is short enough
// to show whole.
func clipMessage(msg string) string {
	runes := []rune(msg)
	if len(runes) <= messageShown {
		return ""
	}
	cut := string(runes[:messageShown])
	if i := strings.LastIndexByte(cut, ' '); i >= len(cut)*3/4 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ") + "…"
}
