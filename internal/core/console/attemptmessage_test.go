package console

import (
	"html"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
)

// Every message QingLong itself records on an attempt (an executor's, a
// stopped or restarted worker's, the lease sweep's) reads whole in Chinese
// on a Chinese Run page, with the signal and the durations it names; an
// English page shows the message as recorded, and so does a Chinese one
// for a message QingLong did not write (a worker's refusal).
func TestEveryMessageQingLongRecordsOnAnAttemptReadsInChinese(t *testing.T) {
	lost := "; the attempt is lost, as a crashed worker's, and a retry policy on lost runs it again"
	lostZH := "；该尝试已丢失，与执行节点崩溃时一样，针对 lost 的重试策略会再次运行它"
	for _, c := range []struct{ en, zh string }{
		{run.NotStartedMessage, "命令未启动；原因见该尝试的日志"},
		{run.SignalMessage(9), "命令被信号 9（SIGKILL）终止"},
		{"the worker was stopped (SIGTERM) before the command ended, and stopped the command when its stop timeout of 30s ran out" + lost,
			"执行节点在命令结束之前被停止（SIGTERM），并在它的停止超时 30s 用完时停止了命令" + lostZH},
		{"the worker was stopped before the command ended, and stopped the command when its stop timeout of 1m0s ran out" + lost,
			"执行节点在命令结束之前被停止，并在它的停止超时 1m0s 用完时停止了命令" + lostZH},
		{"the worker was stopped (SIGINT) before the command ended, and stopped the command when it was asked to stop a second time, before its stop timeout of 30s ran out" + lost,
			"执行节点在命令结束之前被停止（SIGINT），并在它的停止超时 30s 用完之前被第二次要求停止时停止了命令" + lostZH},
		{"the worker was stopped before the command ended, and stopped the command when it was asked to stop a second time, before its stop timeout of 30s ran out" + lost,
			"执行节点在命令结束之前被停止，并在它的停止超时 30s 用完之前被第二次要求停止时停止了命令" + lostZH},
		{run.AbandonedAttemptMessage, "运行该命令的执行节点进程在命令结束之前就已结束（崩溃、SIGKILL 或机器重启）；它在同一数据目录上再次启动后，" +
			"发现该命令已不再运行（或结束了它残留的部分），并将该尝试报告为丢失；针对 lost 的重试策略会再次运行它"},
		{run.UnspawnedGrantMessage, "执行节点进程在副本确认启动之后、创建命令进程之前结束（崩溃、SIGKILL 或机器重启）；它在同一数据目录上再次启动后，" +
			"从它的 journal 日志得知该命令从未运行，并将该尝试报告为丢失；针对 lost 的重试策略会再次运行它"},
		{"the worker stopped renewing the lease (crashed, stopped or cut off); if it crashed, what is left of the command may run on its host " +
			"until the worker is started again on the same data directory, which ends it; a retry policy on lost runs it again",
			"执行节点不再续租（崩溃、被停止或网络断开）；如果它崩溃了，命令残留的进程可能仍在它的主机上运行，直到执行节点在同一数据目录上再次启动并将其结束；" +
				"针对 lost 的重试策略会再次运行它"},
		{"the worker stopped renewing the lease (crashed, stopped or cut off)", "执行节点不再续租（崩溃、被停止或网络断开）"},
		{"the worker's credential was revoked while the command ran (ql workers revoke): the worker was refused and killed the command",
			"命令运行期间执行节点的凭据被吊销（ql workers revoke）：执行节点的请求被拒绝，它终止了命令"},
		{"the lease ran out while the replicas could not reach the database (or none ran): no replica ended it until 2m after, where one that reaches the database does within 15s, " +
			"so the worker's renewals were refused; the worker's own log says whether it ran on meanwhile (attempt_lease_lost: it did, and killed the command when it could not renew)",
			"租约在各副本无法访问数据库（或没有副本在运行）时到期：直到到期 2m 之后才有副本将它结束，而能访问数据库的副本会在 15s 内结束它，因此执行节点的续租被拒绝；" +
				"执行节点自己的日志说明它在此期间是否继续运行（attempt_lease_lost：它继续运行过，并在无法续租时终止了命令）"},
		{"the command passed its timeout and the worker's lease ran out before it reported the end", "命令超过了超时时间，而执行节点的租约在它报告结束之前已到期"},
	} {
		if got := attemptMessage("zh", c.en); got != c.zh {
			t.Errorf("%q in Chinese: %q, want %q", c.en, got, c.zh)
		}
		if got := attemptMessage("en", c.en); got != c.en {
			t.Errorf("%q in English: %q, want it as recorded", c.en, got)
		}
	}
	refusal := "the worker refused: run-as user nobody does not exist"
	if got := attemptMessage("zh", refusal); got != refusal {
		t.Errorf("a worker's refusal in Chinese: %q, want it as recorded", got)
	}
	if page := html.UnescapeString(runPage(t, "zh", process.ErrorCodeSignaled, run.SignalMessage(9))); !strings.Contains(page, `<div class="attempt-message">命令被信号 9（SIGKILL）终止</div>`) {
		t.Errorf("the Chinese Run page does not show the attempt's message in Chinese:\n%s", page)
	}
}
