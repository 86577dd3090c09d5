package apply

import (
	"context"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// SecretUse is one place the current definitions refer to a secret: a
// task's environment variable or a notification channel.
type SecretUse struct {
	Project string `json:"project"`
	// Kind is "task" or "channel".
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Env is the task's variable that receives the secret ("" for a
	// channel).
	Env string `json:"env,omitempty"`
	// Archived is a use in an archived project: nothing of it runs or
	// sends until the project is active again.
	Archived bool `json:"archived,omitempty"`
}

// The kinds of a SecretUse.
const (
	SecretUseTask    = "task"
	SecretUseChannel = "channel"
)

// MaxSecretUseProjects is how many projects SecretUses reads; the uses of
// the projects after them are not known (SecretUses says so).
const MaxSecretUseProjects = 1000

// SecretUses reads every project's current definitions and returns, for
// each secret name they refer to, where: in project, kind, name order.
// complete is false when there were more projects than
// MaxSecretUseProjects or a project held more than a definitions file may
// (its uses beyond that are not listed). It reads the store only; whether
// the secrets file defines a name is for the caller to say.
func SecretUses(ctx context.Context, r catalog.DefinitionsReader) (uses map[string][]SecretUse, complete bool, err error) {
	projects, err := r.ProjectNames(ctx, "", MaxSecretUseProjects+1, nil)
	if err != nil {
		return nil, false, err
	}
	names := catalog.Names(projects)
	complete = len(names) <= MaxSecretUseProjects
	if !complete {
		names = names[:MaxSecretUseProjects]
	}
	uses = map[string][]SecretUse{}
	for _, name := range names {
		d, err := r.ProjectDefinitions(ctx, name, max(MaxTasks, MaxTriggers)+1)
		if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
			// Deleted between the two reads: it refers to nothing now.
			continue
		}
		if err != nil {
			return nil, false, err
		}
		if len(d.Tasks) > MaxTasks {
			complete = false
		}
		archived := d.Project.Status == project.Archived
		for _, t := range d.Tasks {
			// A secret of the project's env is used by every task that
			// does not set that variable itself.
			for _, e := range t.Spec.Command.WithProjectEnv(d.Project.Env).Env {
				if e.SecretRef != "" {
					uses[e.SecretRef] = append(uses[e.SecretRef], SecretUse{Project: name, Kind: SecretUseTask, Name: t.Spec.Name, Env: e.Name, Archived: archived})
				}
			}
		}
		spec, err := notify.Decode(d.Project.Notifications)
		if err != nil {
			return nil, false, qlerror.Wrap(qlerror.Internal, err, "project %q: stored notification settings cannot be read", name)
		}
		for _, c := range spec.Channels {
			for _, ref := range c.Refs() {
				uses[ref] = append(uses[ref], SecretUse{Project: name, Kind: SecretUseChannel, Name: c.Name, Archived: archived})
			}
		}
	}
	for _, list := range uses {
		slices.SortFunc(list, func(a, b SecretUse) int {
			return strings.Compare(a.Project+"\x00"+a.Kind+"\x00"+a.Name+"\x00"+a.Env, b.Project+"\x00"+b.Kind+"\x00"+b.Name+"\x00"+b.Env)
		})
	}
	return uses, complete, nil
}

// SecretEntry is one name a listing of secrets shows: one the secrets
// file defines, one the definitions refer to, or both.
type SecretEntry struct {
	Name string `json:"name"`
	// Defined is whether the secrets file defines the name: a used name
	// it does not define fails every Run or notification that needs it
	// (secret_unavailable).
	Defined bool        `json:"defined"`
	UsedBy  []SecretUse `json:"usedBy"`
	// Project is the project whose namespace the name is in (PROJECT/NAME:
	// only its tasks and channels may name it); "" for a global name,
	// which every project's may.
	Project string `json:"project,omitempty"`
}

// SecretListing is the secrets a file defines beside the uses the
// definitions make of them, by name; never a value.
type SecretListing struct {
	// File is the secrets file's path, where the reader is on its host
	// (the command line on the database); empty over the API, whose token
	// holders need not know the host's layout.
	File    string        `json:"file,omitempty"`
	Secrets []SecretEntry `json:"secrets"`
	// UsesKnown is false when no definitions were read (a secrets file
	// named alone, away from any database): UsedBy is then empty and a
	// missing name cannot be listed.
	UsesKnown bool `json:"usesKnown"`
	// Complete is false when the uses of some projects were not read
	// (SecretUses).
	Complete bool `json:"complete"`
}

// ListSecrets lists the names file defines and, where r is not nil, every
// name the current definitions refer to, with its uses. A file that
// cannot be used is refused as a Run would refuse it.
func ListSecrets(ctx context.Context, r catalog.DefinitionsReader, file process.Secrets) (SecretListing, error) {
	names, err := file.Names()
	if err != nil {
		return SecretListing{}, err
	}
	// An empty listing is [] in JSON, as every listing's is, never null.
	out := SecretListing{File: file.Path, Secrets: []SecretEntry{}}
	uses := map[string][]SecretUse{}
	if r != nil {
		if uses, out.Complete, err = SecretUses(ctx, r); err != nil {
			return SecretListing{}, err
		}
		out.UsesKnown = true
	}
	defined := make(map[string]bool, len(names))
	for _, name := range names {
		defined[name] = true
	}
	all := slices.Clone(names)
	for name := range uses {
		if !defined[name] {
			all = append(all, name)
		}
	}
	slices.Sort(all)
	for _, name := range all {
		// A name nothing uses has an empty list, never null: a script
		// iterating usedBy (jq's .usedBy[]) must not fail on it.
		used := uses[name]
		if used == nil {
			used = []SecretUse{}
		}
		out.Secrets = append(out.Secrets, SecretEntry{Name: name, Defined: defined[name], UsedBy: used, Project: task.SecretProject(name)})
	}
	return out, nil
}
