package apply

import (
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// checkSecretProjects refuses every secret the file's project env, tasks
// and notification channels name in another project's namespace
// (task.CheckSecretProject): one team's definitions must not read
// another's secrets.
func checkSecretProjects(doc *Document) error {
	f := &found{}
	for _, e := range doc.Env {
		if e.SecretRef == "" {
			continue
		}
		if err := task.CheckSecretProject(doc.Project, e.SecretRef); err != nil {
			f.add(located(doc.File, 0, 0, qlerror.Wrap(qlerror.CodeOf(err), err, "project env %s", e.Name)))
		}
	}
	for i, td := range doc.Tasks {
		for _, e := range td.Spec.Command.Env {
			if e.SecretRef == "" {
				continue
			}
			if err := task.CheckSecretProject(doc.Project, e.SecretRef); err != nil {
				f.add(taskErr(doc, i, qlerror.Wrap(qlerror.CodeOf(err), err, "env %s", e.Name)))
			}
		}
	}
	if doc.HasNotifications {
		for _, c := range doc.Notifications.Channels {
			for _, ref := range c.Refs() {
				if err := task.CheckSecretProject(doc.Project, ref); err != nil {
					f.add(located(doc.File, 0, 0, qlerror.Wrap(qlerror.CodeOf(err), err, "notification channel %q", c.Name)))
				}
			}
		}
	}
	return f.err(doc.File)
}
