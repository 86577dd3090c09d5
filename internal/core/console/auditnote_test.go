package console

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// Every note the server itself writes on an audit record (a user's
// creation, the first owner's, a binding, a token's creation, a
// notification's retry, a channel's test) reads in Chinese on a Chinese Audit page, the
// names and the duration as written; an English page shows it as
// recorded, and a note a user wrote (a pause's) is never translated.
func TestTheAuditNotesTheServerWritesReadInChinese(t *testing.T) {
	t.Parallel()
	first := account.NewUser{Name: "laowang", Role: account.Owner}
	bound := account.NewUser{Name: "ops", Role: account.Operator, Projects: []string{"jd", "shop"}}
	token := apitoken.NewToken{Name: "ci", Scope: apitoken.Operate, ExpiresIn: 2160 * time.Hour, Projects: []string{"jd"}}
	retried := notify.Message{Event: notify.OnFailed, RunID: "01a2"}
	for _, c := range []struct {
		e    audit.Entry
		want string
	}{
		{account.Created(first, "the first owner, with the setup code"), "第一个所有者，用设置码创建；角色：所有者"},
		{account.Created(first, "the first owner"), "第一个所有者；角色：所有者"},
		{account.Created(bound, ""), "角色：操作员；项目：jd, shop"},
		{account.Change{Action: audit.UserProjectsSet, Note: account.ProjectsNote(nil)}.Entry(""), "所有项目"},
		{account.Change{Action: audit.UserProjectsSet, Note: account.ProjectsNote([]string{"jd"})}.Entry(""), "项目：jd"},
		{token.Created(), "范围：操作；有效期 2160h0m0s；项目：jd"},
		{retried.Retried("alice"), "失败；运行 01a2"},
		{notify.Trial{Delivered: true, Status: 200}.Tested("alice", "shop", notify.Channel{Name: "ops"}), "已送达；HTTP 200"},
		{notify.Trial{Delivered: true}.Tested("alice", "shop", notify.Channel{Name: "mail"}), "已送达，邮件服务器已接收"},
		{notify.Trial{Status: 502, Failure: notify.Failure{Reason: notify.ReasonReceiverStatus, Text: "channel ops: upstream gone"}}.Tested("alice", "shop", notify.Channel{Name: "ops"}),
			"未送达；" + failureWhy("zh", notify.ReasonReceiverStatus) + "；HTTP 502；channel ops: upstream gone"},
		{audit.Entry{Action: audit.TriggerPaused, Note: "role owner"}, "role owner"},
	} {
		if got := auditNote("zh", c.e.Action, c.e.Note); got != c.want {
			t.Errorf("%s %q in Chinese: %q, want %q", c.e.Action, c.e.Note, got, c.want)
		}
		if got := auditNote("en", c.e.Action, c.e.Note); got != c.e.Note {
			t.Errorf("%s %q in English: %q, want it as recorded", c.e.Action, c.e.Note, got)
		}
	}
}
