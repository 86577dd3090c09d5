package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// HandoverFormat names the state file `export --with-state` writes and
// `apply --adopt-state` reads.
const HandoverFormat = "qinglong-handover/v1"

// HandoverStateFile is the state file's name in the directory export
// --with-state writes.
const HandoverStateFile = "handover-state.json"

// handoverState is what a database hands over besides its definitions:
// per project its pause, per trigger its schedule position and its own
// pause. Triggers are named, not identified: the target's ids are its own.
type handoverState struct {
	Format         string         `json:"format"`
	HandedOverAtMs int64          `json:"handedOverAtMs"`
	Projects       []projectState `json:"projects"`
}

type projectState struct {
	Name     string         `json:"name"`
	Paused   *pauseState    `json:"paused,omitempty"`
	Triggers []triggerState `json:"triggers"`
}

type triggerState struct {
	Name string `json:"name"`
	// CursorMs is the trigger's next occurrence not yet admitted; absent
	// while its schedule never started (no server ran since it was
	// published) or once it ended.
	CursorMs *int64 `json:"cursorMs,omitempty"`
	// Paused is the trigger's own pause; a pause that is its project's
	// travels as the project's.
	Paused *pauseState `json:"paused,omitempty"`
}

type pauseState struct {
	SinceMs int64  `json:"sinceMs"`
	Note    string `json:"note,omitempty"`
	By      string `json:"by"`
}

// readState reads the schedule positions and pauses of the project named
// name from b.
func readState(ctx context.Context, b *Backend, name string) (projectState, error) {
	out := projectState{Name: name, Triggers: []triggerState{}}
	pp, err := b.ProjectPauses.ProjectPauseRead(ctx, name)
	if err != nil {
		return out, err
	}
	if pp.Paused {
		out.Paused = &pauseState{SinceMs: pp.AtMs, Note: pp.Note, By: pp.Actor}
	}
	after := ""
	for {
		page, next, err := b.Triggers.TriggerList(ctx, schedule.TriggerListParams{ProjectID: pp.ProjectID, Limit: run.MaxPageSize, After: after})
		if err != nil {
			return out, err
		}
		for _, t := range page {
			ts := triggerState{Name: t.Name, CursorMs: t.NextFireAtMs}
			if t.Paused && !t.PausedWithProject {
				if ts.Paused, err = ownPause(ctx, b, t.TriggerID); err != nil {
					return out, err
				}
			}
			out.Triggers = append(out.Triggers, ts)
		}
		if next == "" {
			return out, nil
		}
		after = next
	}
}

// ownPause is a trigger's own pause: its note and start, and who paused
// it (its newest pause record).
func ownPause(ctx context.Context, b *Backend, triggerID string) (*pauseState, error) {
	d, err := b.Detail.TriggerDetail(ctx, triggerID, 0)
	if err != nil {
		return nil, err
	}
	p := &pauseState{Note: d.PauseNote, By: "unknown"}
	if d.PausedAtMs != nil {
		p.SinceMs = *d.PausedAtMs
	}
	for _, a := range d.Audit {
		if a.Action == "pause" {
			p.By, p.SinceMs = a.Actor, a.AtMs
			break
		}
	}
	return p, nil
}

// writeState writes s to path, mode 0600 (it names who paused what, with
// their notes).
func writeState(path string, s handoverState) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "cannot write the state file %s", path)
	}
	return nil
}

// RefusalStateFile is an `apply --adopt-state` whose state file cannot be
// read as one `export --with-state` wrote, or holds no state of the
// project applied.
const RefusalStateFile qlerror.Reason = "handover_state_unreadable"

// readStateFile reads the state file at path and returns the state of
// project.
func readStateFile(path, project string) (projectState, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return projectState{}, qlerror.Wrap(qlerror.Invalid, err, "cannot read the state file %s; give --adopt-state the %s that `export --all --with-state -o DIR` wrote in DIR", path, HandoverStateFile).
			Because(RefusalStateFile, "file", path)
	}
	var s handoverState
	if err := json.Unmarshal(b, &s); err != nil || s.Format != HandoverFormat {
		return projectState{}, qlerror.New(qlerror.Invalid, "%s is not a state file of this build (format %q): give --adopt-state the %s that `export --all --with-state -o DIR` wrote in DIR", path, HandoverFormat, HandoverStateFile).
			Because(RefusalStateFile, "file", path)
	}
	for _, p := range s.Projects {
		if p.Name == project {
			return p, nil
		}
	}
	return projectState{}, qlerror.New(qlerror.Invalid, "the state file %s holds no project %s; it holds %s", path, project, stateProjects(s)).
		Because(RefusalStateFile, "file", path, "project", project)
}

func stateProjects(s handoverState) string {
	if len(s.Projects) == 0 {
		return "none"
	}
	out := ""
	for i, p := range s.Projects {
		if i > 0 {
			out += ", "
		}
		out += p.Name
	}
	return fmt.Sprintf("%s (%d)", out, len(s.Projects))
}
