package console

import (
	"regexp"

	"github.com/qinglong/qinglong/internal/core/run"
)

// attemptMessages say in the languages other than English the messages
// QingLong itself records on an attempt, each by the English internal/core/run
// records it in: a message without parameters by its run constant itself,
// one with parameters by a pattern of its run function's words ($1, $2: the
// signal, the durations it names), which
// TestEveryAttemptMessageQingLongRecordsReadsInEveryOtherLanguage holds to
// that function's words. Any other message, a worker's refusal or a newer
// server's words, is shown as it was recorded.
var attemptMessages = map[string][]stopWord{"zh": {
	{exactly(run.NotStartedMessage), "命令未启动；原因见该尝试的日志"},
	{regexp.MustCompile(`^the command was killed by signal (\d+) \((\w+)\)$`), "命令被信号 $1（$2）终止"},
	{regexp.MustCompile(`^the worker was stopped \((\w+)\) before the command ended, and stopped the command when its stop timeout of (\S+) ran out; ` + workerLost),
		"执行节点在命令结束之前被停止（$1），并在它的停止超时 $2 用完时停止了命令；" + workerLostZH},
	{regexp.MustCompile(`^the worker was stopped before the command ended, and stopped the command when its stop timeout of (\S+) ran out; ` + workerLost),
		"执行节点在命令结束之前被停止，并在它的停止超时 $1 用完时停止了命令；" + workerLostZH},
	{regexp.MustCompile(`^the worker was stopped \((\w+)\) before the command ended, and stopped the command when it was asked to stop a second time, before its stop timeout of (\S+) ran out; ` + workerLost),
		"执行节点在命令结束之前被停止（$1），并在它的停止超时 $2 用完之前被第二次要求停止时停止了命令；" + workerLostZH},
	{regexp.MustCompile(`^the worker was stopped before the command ended, and stopped the command when it was asked to stop a second time, before its stop timeout of (\S+) ran out; ` + workerLost),
		"执行节点在命令结束之前被停止，并在它的停止超时 $1 用完之前被第二次要求停止时停止了命令；" + workerLostZH},
	{exactly(run.AbandonedAttemptMessage),
		"运行该命令的执行节点进程在命令结束之前就已结束（崩溃、SIGKILL 或机器重启）；它在同一数据目录上再次启动后，发现该命令已不再运行（或结束了它残留的部分），并将该尝试报告为丢失；" +
			"针对 lost 的重试策略会再次运行它"},
	{exactly(run.UnspawnedGrantMessage),
		"执行节点进程在副本确认启动之后、创建命令进程之前结束（崩溃、SIGKILL 或机器重启）；它在同一数据目录上再次启动后，从它的 journal 日志得知该命令从未运行，并将该尝试报告为丢失；" +
			"针对 lost 的重试策略会再次运行它"},
	{exactly(run.LeaseExpiredMessage), "执行节点不再续租（崩溃、被停止或网络断开）；" +
		"如果它崩溃了，命令残留的进程可能仍在它的主机上运行，直到执行节点在同一数据目录上再次启动并将其结束；针对 lost 的重试策略会再次运行它"},
	{exactly(run.EarlierLeaseExpiredMessage), "执行节点不再续租（崩溃、被停止或网络断开）"},
	{exactly(run.WorkerRevokedMessage), "命令运行期间执行节点的凭据被吊销（ql workers revoke）：执行节点的请求被拒绝，它终止了命令"},
	{exactly(run.DatabaseRolledBackMessage), "数据库回到了比执行节点所知更早的时刻（恢复了备份，或切换到丢失了提交的备库）：执行节点的租约比数据库的新，因此续租被拒绝，它终止了命令"},
	{regexp.MustCompile(`^the lease ran out while the replicas could not reach the database \(or none ran\): no replica ended it until (\S+) after, ` +
		`where one that reaches the database does within (\S+), so the worker's renewals were refused; the worker's own log says whether it ran on meanwhile ` +
		`\(attempt_lease_lost: it did, and killed the command when it could not renew\)$`),
		"租约在各副本无法访问数据库（或没有副本在运行）时到期：直到到期 $1 之后才有副本将它结束，而能访问数据库的副本会在 $2 内结束它，因此执行节点的续租被拒绝；" +
			"执行节点自己的日志说明它在此期间是否继续运行（attempt_lease_lost：它继续运行过，并在无法续租时终止了命令）"},
	{exactly(run.LeaseExpiredAfterTimeoutMessage), "命令超过了超时时间，而执行节点的租约在它报告结束之前已到期"},
}}

// workerLost ends a stopped worker's message, and workerLostZH says it in
// Chinese.
const (
	workerLost   = `the attempt is lost, as a crashed worker's, and a retry policy on lost runs it again$`
	workerLostZH = "该尝试已丢失，与执行节点崩溃时一样，针对 lost 的重试策略会再次运行它"
)

// exactly matches s alone.
func exactly(s string) *regexp.Regexp { return regexp.MustCompile("^" + regexp.QuoteMeta(s) + "$") }

// attemptMessage is an attempt's message msg in language l: its own words
// on an English page, and where l has none for it.
func attemptMessage(l, msg string) string {
	if says, ok := stopSays(attemptMessages[l], msg); ok {
		return says
	}
	return msg
}
