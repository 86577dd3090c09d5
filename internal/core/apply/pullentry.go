package apply

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// PullEntry is a subscription's pull task and the trigger of the same
// name that runs it, as the console's Subscriptions form publishes them:
// the task's script, display title and the labels that say what it
// subscribes to, the schedule, and whether both are enabled.
type PullEntry struct {
	Project, Name, Title, Script string
	// KeepCommand leaves the task's command (its script or argv, and
	// shell) as it is, Script unused: an ended subscription's task pulls
	// what it pulled, whatever its labels would write now.
	KeepCommand bool
	// Labels replace the task's labels whose keys start with
	// LabelPrefix; the task's other labels are kept.
	Labels      map[string]string
	LabelPrefix string
	// Env sets the task's variables of the names in EnvNames (the
	// credentials its script reads), one of them missing from Env
	// removed; the task's other variables are kept.
	Env      map[string]string
	EnvNames []string
	// KeepSecretCredentials says that an edited task whose env gives one
	// of EnvNames from a secret ({secret: NAME}) keeps the variables of
	// EnvNames as they are, Env unused: the user pointed the task at a
	// secret by hand, which an edit typing no credentials into a URL of
	// the same host must not undo. Unset (an edit to another host, or
	// one typing credentials), they are replaced by Env as any are, so
	// that a secret never follows the task to a host it was not set for.
	KeepSecretCredentials bool
	// Enabled is the state of the task and its trigger of Name. An edit
	// setting it (KeepEnabled unset) disables the task and that trigger,
	// or enables the two, or the task and every trigger of it when it has
	// none of Name: a task labelled by hand may be fired by triggers of
	// other names only, and enabling it must make it pull.
	Enabled bool
	// KeepEnabled says that an edit leaves the enabled state of the task
	// and of each of its triggers as it is (one made by the edit takes
	// Enabled; the trigger of Name of a disabled task is written
	// disabled, as a file must): the form asked for no change of it, and
	// the state read of several triggers is not one to write back over
	// each.
	KeepEnabled    bool
	Cron, Timezone string
}

// NewPullFile writes the definitions file creating e's task and trigger
// in its project (created with them when it does not exist): the project
// with its title, cap and env as they are, and those two alone, refused
// (RefusalNameTaken) when the project has a task or trigger of e's name.
func NewPullFile(ctx context.Context, r catalog.DefinitionsReader, e PullEntry) ([]byte, error) {
	doc := exportDoc{Project: e.Project}
	if validate.Name("project", e.Project) == nil {
		d, err := r.ProjectDefinitions(ctx, e.Project, max(MaxTasks, MaxTriggers)+1)
		switch {
		case qlerror.ReasonOf(err) == catalog.RefusalProjectMissing:
		case err != nil:
			return nil, err
		default:
			doc = statusOnly(d.Project)
			for _, x := range d.Tasks {
				if x.Spec.Name == e.Name {
					return nil, nameTaken("task", e.Name, e.Project)
				}
			}
			for _, x := range d.Triggers {
				if x.Spec.Name == e.Name {
					return nil, nameTaken("trigger", e.Name, e.Project)
				}
			}
		}
	}
	script := e.Script
	t := exportTask{Name: e.Name, Title: e.Title, Script: &script, Labels: e.Labels}
	if len(e.Env) > 0 {
		t.Env = e.Env
	}
	tr := exportTrigger{Name: e.Name, Task: e.Name, Title: e.Title, Cron: e.Cron, Timezone: e.Timezone, Misfire: string(trigger.FireOnce)}
	if !e.Enabled {
		t.Enabled, tr.Enabled = new(false), new(false)
	}
	doc.Tasks, doc.Triggers = []exportTask{t}, []exportTrigger{tr}
	return encodeExport(doc)
}

// PullEditFile writes the definitions file giving the task and trigger
// named e.Name of e.Project e's script in place of its script or command
// (unless e.KeepCommand), subscription labels, credentials (the env of
// e.EnvNames, a secret set by hand kept: e.KeepSecretCredentials), schedule
// and enabled state (unless e.KeepEnabled; the task's other triggers too
// when enabling one with no trigger of e.Name), every other field
// of theirs (the rest of the env, timeout, placement, titles, overlap, …)
// as it is, so that what was set on the task as a task
// stays; a trigger of that name missing is created when e has a cron (an
// end of a subscription without one leaves it missing). The revisions the
// file was written from are returned for the apply to check again
// (Document.Expect), so that a change published meanwhile is not undone.
func PullEditFile(ctx context.Context, r catalog.DefinitionsReader, e PullEntry) ([]byte, []Expected, error) {
	d, cur, err := taskOf(ctx, r, e.Project, e.Name)
	if err != nil {
		return nil, nil, err
	}
	t := exportTaskSpec(cur.Spec)
	t.Title = d.Titles.Tasks[e.Name]
	if !e.KeepCommand {
		// A task runs a command or a script, not both: a task labelled a
		// subscription by hand whose command is a program and its
		// arguments gets the pull script in its place. Its shell, a
		// script's, is kept: both allowed shells run the pull script.
		script := e.Script
		t.Script, t.Command = &script, nil
	}
	t.Labels, t.Env = pullLabels(cur.Spec.Labels, e), pullEnv(cur.Spec.Command.Env, e)
	if !e.KeepEnabled {
		t.Enabled = enabledField(e.Enabled)
	}
	expect := []Expected{{Kind: "task", Name: e.Name, Revision: cur.Revision}}
	var tr *exportTrigger
	for _, x := range d.Triggers {
		if x.Spec.Name == e.Name && x.TaskID == cur.TaskID {
			had := exportTriggerSpec(e.Name, x.Spec)
			had.Title = d.Titles.Triggers[e.Name]
			tr = &had
			expect = append(expect, Expected{Kind: "trigger", Name: e.Name, Revision: x.Revision})
		}
	}
	made := tr == nil && e.Cron != ""
	if made {
		tr = &exportTrigger{Name: e.Name, Task: e.Name, Title: e.Title, Misfire: string(trigger.FireOnce)}
	}
	doc := statusOnly(d.Project)
	doc.Tasks = []exportTask{t}
	if tr != nil {
		tr.Cron, tr.Timezone = e.Cron, e.Timezone
		if made || !e.KeepEnabled {
			tr.Enabled = enabledField(e.Enabled)
		}
		if t.Enabled != nil {
			// A definitions file refuses an enabled trigger of a disabled
			// task: a task kept disabled, whose trigger was left enabled
			// (the task disabled alone), gets it written disabled, which
			// fires nothing either way.
			tr.Enabled = new(false)
		}
		doc.Triggers = []exportTrigger{*tr}
	}
	if tr == nil && e.Enabled && !e.KeepEnabled {
		for _, x := range d.Triggers {
			if x.TaskID == cur.TaskID && !x.Spec.Enabled {
				other := exportTriggerSpec(e.Name, x.Spec)
				other.Title, other.Enabled = d.Titles.Triggers[x.Spec.Name], nil
				doc.Triggers = append(doc.Triggers, other)
				expect = append(expect, Expected{Kind: "trigger", Name: x.Spec.Name, Revision: x.Revision})
			}
		}
	}
	text, err := encodeExport(doc)
	return text, expect, err
}

// enabledField is a task's or trigger's enabled field of a definitions
// file: left out when enabled, as an export writes it.
func enabledField(enabled bool) *bool {
	if enabled {
		return nil
	}
	return new(false)
}

// pullLabels are the task's labels with those of e's prefix replaced by
// e's.
func pullLabels(had map[string]string, e PullEntry) map[string]string {
	out := map[string]string{}
	for k, v := range had {
		if !strings.HasPrefix(k, e.LabelPrefix) {
			out[k] = v
		}
	}
	maps.Copy(out, e.Labels)
	if len(out) == 0 {
		return nil
	}
	return out
}

// pullEnv is the task's env with the variables of e's names replaced by
// e's, nil when none is left; the task's env as it is when it gives one
// of them from a secret and e keeps such (KeepSecretCredentials).
func pullEnv(had []task.EnvVar, e PullEntry) any {
	if e.KeepSecretCredentials && SecretCredentials(had, e.EnvNames) {
		return exportEnv(had)
	}
	kept := slices.DeleteFunc(slices.Clone(had), func(v task.EnvVar) bool { return slices.Contains(e.EnvNames, v.Name) })
	out, _ := exportEnv(kept).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	for _, name := range e.EnvNames {
		if v, ok := e.Env[name]; ok {
			out[name] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// SecretCredentials says whether env gives one of the variables of names
// from a secret ({secret: NAME}).
func SecretCredentials(env []task.EnvVar, names []string) bool {
	return slices.ContainsFunc(env, func(v task.EnvVar) bool { return v.SecretRef != "" && slices.Contains(names, v.Name) })
}

// ScriptEditFile writes the definitions file giving the task named name
// of projectName the script, every other field of it (env, labels,
// enabled, timeout, placement, title, …) as it is; its triggers, left out,
// follow it to its new revision as any apply's do. The task's revision
// the file was written from is returned for the apply to check again
// (Document.Expect), so that a change published meanwhile is not undone.
func ScriptEditFile(ctx context.Context, r catalog.DefinitionsReader, projectName, name, script string) ([]byte, []Expected, error) {
	d, cur, err := taskOf(ctx, r, projectName, name)
	if err != nil {
		return nil, nil, err
	}
	t := exportTaskSpec(cur.Spec)
	t.Title = d.Titles.Tasks[name]
	t.Script = &script
	doc := statusOnly(d.Project)
	doc.Tasks = []exportTask{t}
	text, err := encodeExport(doc)
	return text, []Expected{{Kind: "task", Name: name, Revision: cur.Revision}}, err
}
