package apply

import (
	"go.yaml.in/yaml/v3"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// EnvRow is one environment variable of a task as the console's task
// forms show and send it: a value, or (UsesSecret) the name of a secret
// the command gets the value of at start ("" while none is chosen). A
// secret's value is never part of it.
type EnvRow struct {
	Name, Value, Secret string
	UsesSecret          bool
}

// RefusalEnvNotShown is a task with an env value a text box cannot give
// back as it is (a carriage return, a control character): kind, name,
// project, and the variable (env).
const RefusalEnvNotShown qlerror.Reason = "defs_edit_env_not_shown"

// EnvRows is env as the task forms show it, in its stored (name) order.
func EnvRows(env []task.EnvVar) []EnvRow {
	out := make([]EnvRow, 0, len(env))
	for _, e := range env {
		out = append(out, EnvRow{Name: e.Name, Value: e.Value, Secret: e.SecretRef, UsesSecret: e.SecretRef != ""})
	}
	return out
}

// envYAML is rows as a file's task env, in the order sent, a name given
// twice written twice: the file's reader then says what is wrong with
// each row as it says it of a file's (a name twice, a reserved or
// malformed name, a secret name that is no secret's), rather than a map
// dropping a row unsaid. nil (no env key) for no rows.
func envYAML(rows []EnvRow) any {
	if len(rows) == 0 {
		return nil
	}
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, r := range rows {
		v := str(r.Value)
		if r.UsesSecret {
			v = &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{str("secret"), str(r.Secret)}}
		}
		n.Content = append(n.Content, str(r.Name), v)
	}
	return n
}

// envShownAsIs refuses, for the Edit task form, a task with an env value
// a text box would not give back as it is: the form could not keep it.
func envShownAsIs(projectName string, cur task.Revision) error {
	for _, e := range cur.Spec.Command.Env {
		if e.SecretRef == "" && !shownAsIs(e.Value) {
			return qlerror.New(qlerror.FailedPrecondition, "task %q of project %q has env %s with a carriage return or another control character in its value, "+
				"which a text box cannot give back as it is: edit it in the project's definitions file", cur.Spec.Name, projectName, e.Name).
				Because(RefusalEnvNotShown, "kind", "task", "name", cur.Spec.Name, "project", projectName, "env", e.Name)
		}
	}
	return nil
}
