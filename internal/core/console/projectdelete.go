package console

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// projectDeleteWords are the words of the Delete project step on the
// triggers list of an archived project, and of the notice after it.
var projectDeleteWords = map[string]map[string]string{
	"en": {
		"ask.deleteproject":     "Delete project…",
		"confirm.deleteproject": "Yes, delete project %s and everything of it",
		"hint.deleteproject": "Deletes the archived project with its tasks, triggers, Runs, logs, occurrence ledger and notifications, and the secrets " +
			"of its namespace (PROJECT/NAME) in this server's secrets file. This cannot be undone. It is refused while a Run of it has not finished or a live " +
			"API token is bound to it.",
		"proj.deleted": "Project %s was deleted with everything of it.",
	},
	"zh": {
		"ask.deleteproject":     "删除项目…",
		"confirm.deleteproject": "确认删除项目 %s 及其全部内容",
		"hint.deleteproject": "删除这个已归档的项目及其任务、触发器、运行、日志、触发记录账本和通知，以及本服务器密钥文件中该项目命名空间（项目/名称）下的密钥。" +
			"此操作无法撤销。该项目还有未结束的运行，或有仍然有效的 API 令牌绑定到它时，删除会被拒绝。",
		"proj.deleted": "项目 %s 及其全部内容已删除。",
	},
}

func init() {
	for l, m := range projectDeleteWords {
		maps.Copy(messages[l], m)
	}
}

// refusalCannotDeleteProject: this server cannot delete projects (a
// cluster replica, whose role may not delete Runs).
const refusalCannotDeleteProject qlerror.Reason = "console_cannot_delete_project"

// projectDelete deletes the archived project in the address ({project},
// its name), as `ql projects delete --yes` does, once the page's danger
// step was confirmed, and answers with the list of every project saying
// it was deleted; a refusal (active, unfinished Runs, a bound token) is
// answered as every other, in the page's language.
func (c *Console) projectDelete(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.ProjectDeleter == nil {
		c.fail(w, r, s, qlerror.New(qlerror.FailedPrecondition, "this server cannot delete projects; use `ql projects delete` with the maintenance role's URL").Because(refusalCannotDeleteProject))
		return
	}
	res, err := c.cfg.ProjectDeleter.ProjectDelete(r.Context(), project.DeleteRequest{Project: r.PathValue("project"), Actor: s.actor(r)})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.cfg.Log.Info("console: project deleted", "code", project.CodeDeleted, "project", res.ProjectName, "id", res.ProjectID, "runs", res.Deleted.Runs,
		"tasks", res.Deleted.Tasks, "triggers", res.Deleted.Triggers, "logs_kept", len(res.Kept), "secrets", len(res.Secrets), "actor", s.actor(r))
	http.Redirect(w, r, "/triggers?"+url.Values{"project_deleted": {res.ProjectName}}.Encode(), http.StatusSeeOther)
}

// projectDeleted is the notice of a project just deleted
// (?project_deleted=NAME), in the page's language; "" for none.
func projectDeleted(r *http.Request) string {
	name := r.URL.Query().Get("project_deleted")
	if name == "" {
		return ""
	}
	return fmt.Sprintf(tr(lang(r), "proj.deleted"), name)
}
