package deps

import (
	"context"
	"fmt"
	"sync"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// ProjectName is the project the installers run in, made on first use:
// a task and a trigger per kind (node, python, linux), capped at one Run
// at a time, since two installers writing one node_modules or one
// site-packages at once break both.
const ProjectName = "dependencies"

// projectTitle is the project's title in the lists, in both languages.
const projectTitle = "依赖管理 · Dependencies"

// KindLabel marks a task of the project as the page's installer of a
// kind: the page publishes over a task of its names only when it carries
// the label, so a project of that name someone made for their own tasks
// is never overwritten.
const KindLabel = "dependencies/kind"

// never is the schedule of an installer's trigger, which is paused
// besides: an install is a Run someone asks for, never the clock's. The
// 29th of February is far off, and skip admits no missed one.
var never = trigger.Cron{Expression: "0 0 0 29 2 *", Timezone: "UTC", MisfirePolicy: trigger.Skip}

// Service installs and removes declared packages: each change publishes
// the kind's task with its installer's command, then asks for a manual Run
// of its trigger, which the executor runs like any other (its log, cancel,
// timeout, the project's cap, retention), and names that Run as the
// packages' state.
type Service struct {
	Host    Host
	Store   Store
	Catalog catalog.Service
	Manual  schedule.Manual
	Pauser  schedule.Pauser
	// Runs reads the Runs that name the packages' states.
	Runs run.Reader
	// mu orders the publish and the Run of one change before another's,
	// so that each Run is of its own revision of the task.
	mu sync.Mutex
}

// Do asks for a Run that does a to pkgs, all of kind k, and records it;
// it returns the Run's id. A removal of a package not declared is refused
// before anything runs.
func (s *Service) Do(ctx context.Context, actor string, k Kind, a Action, pkgs []Package) (string, error) {
	installer, err := s.Host.Ready(k)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a == Remove {
		if err := s.declared(ctx, pkgs); err != nil {
			return "", err
		}
	}
	m, err := s.mirrorOf(ctx, k)
	if err != nil {
		return "", err
	}
	triggerID, err := s.publish(ctx, actor, k, s.Host.Command(k, a, installer, pkgs, m))
	if err != nil {
		return "", err
	}
	res, err := s.Manual.TriggerRunNow(ctx, schedule.RunNowRequest{TriggerID: triggerID, RequestID: ids.New(), Actor: actor})
	if err != nil {
		return "", err
	}
	if a == Remove {
		return res.RunID, s.Store.DependencyRemoved(ctx, actor, res.RunID, pkgs)
	}
	return res.RunID, s.Store.DependencyInstalling(ctx, actor, res.RunID, pkgs)
}

// declared refuses the first of pkgs that is not declared.
func (s *Service) declared(ctx context.Context, pkgs []Package) error {
	list, err := s.Store.DependencyList(ctx)
	if err != nil {
		return err
	}
	have := map[Package]bool{}
	for _, d := range list {
		have[Package{Kind: d.Kind, Name: d.Name}] = true
	}
	for _, p := range pkgs {
		if !have[Package{Kind: p.Kind, Name: p.Name}] {
			return NotDeclared(p)
		}
	}
	return nil
}

// publish makes the project on first use and publishes the kind's task
// with cmd and its trigger pinned to it, paused; it returns the
// trigger's id.
func (s *Service) publish(ctx context.Context, actor string, k Kind, cmd task.Command) (string, error) {
	st := s.Catalog.Store
	p, err := st.ProjectByName(ctx, ProjectName)
	if qlerror.CodeOf(err) == qlerror.NotFound {
		p = project.Project{ID: ids.New(), Name: ProjectName, Status: project.Active, Title: projectTitle, MaxRunning: 1}
		_, err = st.ProjectSave(ctx, p)
	}
	if err != nil {
		return "", err
	}
	if p.MaxRunning == 0 {
		return "", ProjectTaken(TakenUncapped, "it lets any number of Runs run at once, and two installers writing one node_modules or site-packages at once break both")
	}
	if p.MaxRunning != 1 {
		return "", ProjectTaken(TakenConcurrent, fmt.Sprintf("it lets %d Runs run at once, and two installers writing one node_modules or site-packages at once break both", p.MaxRunning),
			"runs", p.MaxRunning)
	}
	name := string(k)
	had, err := st.TaskByName(ctx, p.ID, name)
	if err == nil && had.Spec.Labels[KindLabel] != name {
		return "", ProjectTaken(TakenUnlabelled, fmt.Sprintf("its task %s is not the page's installer (it has no label %s: %s)", name, KindLabel, name),
			"task", name, "label", KindLabel+": "+name)
	}
	taskID, expected, err := current(had, err)
	if err != nil {
		return "", err
	}
	spec := task.Spec{Name: name, Enabled: true, Labels: map[string]string{KindLabel: name}, Command: cmd}
	rev, _, err := s.Catalog.PublishTask(ctx, p.ID, taskID, expected, ids.New(), spec)
	if err != nil {
		return "", err
	}
	tr, err := st.TriggerByName(ctx, p.ID, name)
	triggerID, expected := tr.TriggerID, tr.Revision
	if qlerror.CodeOf(err) == qlerror.NotFound {
		triggerID, expected, err = ids.New(), 0, nil
	}
	if err != nil {
		return "", err
	}
	if _, _, err := s.Catalog.PublishTrigger(ctx, p.ID, triggerID, rev, expected, ids.New(), trigger.Spec{Name: name, Enabled: true, Cron: never}); err != nil {
		return "", err
	}
	_, err = s.Pauser.TriggerPause(ctx, schedule.PauseRequest{TriggerID: triggerID, Pause: true, Actor: actor, Note: "installs run when asked for on the Dependencies page"})
	return triggerID, err
}

// current is the id and revision of a task read by name; a new id and
// revision 0 when there is none.
func current(rev task.Revision, err error) (string, int64, error) {
	if qlerror.CodeOf(err) == qlerror.NotFound {
		return ids.New(), 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	return rev.TaskID, rev.Revision, nil
}

// mirrorOf is kind k's mirror, zero when none is set.
func (s *Service) mirrorOf(ctx context.Context, k Kind) (Mirror, error) {
	all, err := s.DependencyMirrors(ctx)
	if err != nil {
		return Mirror{}, err
	}
	for _, m := range all {
		if m.Kind == k {
			return m, nil
		}
	}
	return Mirror{Kind: k}, nil
}

// DependencyMirrors is the mirror of every kind that takes one, in the
// page's order: empty fields where none is set.
func (s *Service) DependencyMirrors(ctx context.Context) ([]Mirror, error) {
	set, err := s.Store.DependencyMirrors(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Mirror, 0, len(MirrorKinds))
	for _, k := range MirrorKinds {
		m := Mirror{Kind: k}
		for _, x := range set {
			if x.Kind == k {
				m = x
			}
		}
		m.TrustedHost = trustedHost(m)
		out = append(out, m)
	}
	return out, nil
}

// DependencyMirrorSet checks m and keeps it as its kind's mirror, which
// the kind's next install fetches through.
func (s *Service) DependencyMirrorSet(ctx context.Context, actor string, m Mirror) (Mirror, error) {
	m, err := CheckMirror(m)
	if err != nil {
		return Mirror{}, err
	}
	return m, s.Store.DependencyMirrorSet(ctx, actor, m)
}
