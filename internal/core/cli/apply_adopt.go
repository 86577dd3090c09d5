package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// adoptState gives the triggers of project, just published, the schedule
// positions and pauses st, read from the state file at path before the
// publish, handed over
// (`export --with-state`): each trigger's cursor (schedule.Adopter, which
// refuses a trigger whose schedule already decided occurrences here),
// then the triggers' own pauses, then the project's, which marks as its
// own only the triggers not paused already, as at the source; each pause
// keeps its note, who paused and when it began at the source. A trigger of
// the state the database lacks (renamed, or left out of the file) is
// noted; its position is not adopted. Run again, it changes nothing more:
// adoption over a trigger that has only been published is the same
// write, and a pause asked for again is unchanged.
func adoptState(ctx context.Context, cmd *cobra.Command, b *Backend, path, project string, st projectState) error {
	d, err := b.Definitions.ProjectDefinitions(ctx, project, max(apply.MaxTasks, apply.MaxTriggers)+1)
	if err != nil {
		return err
	}
	byName := make(map[string]int, len(d.Triggers))
	for i, t := range d.Triggers {
		byName[t.Spec.Name] = i
	}
	w := textWriter{cmd.OutOrStdout()}
	adopted, already := 0, 0
	for _, ts := range st.Triggers {
		i, ok := byName[ts.Name]
		if !ok {
			printNote(cmd, project, fmt.Sprintf("trigger %s of the state file is not in project %s here (renamed, or left out of the file): its schedule position was not adopted", ts.Name, project))
			continue
		}
		t := d.Triggers[i]
		if ts.CursorMs != nil {
			cursor, offset, ok, err := schedule.AdoptedCursor(t.TriggerID, t.Spec.Cron, *ts.CursorMs)
			if err != nil {
				return err
			}
			if ok {
				res, err := b.Adopt.ScheduleAdopt(ctx, schedule.AdoptRequest{TriggerID: t.TriggerID, CursorMs: cursor, DueOffsetMs: offset})
				if err != nil {
					return adoptFailed(err, project, ts.Name, adopted)
				}
				if res == schedule.AdoptedAlready {
					already++
				} else {
					adopted++
				}
				fmt.Fprintln(w, adoptedLine(project, ts.Name, cursor, res))
			}
		}
		if ts.Paused != nil {
			res, err := b.Pause.TriggerPause(ctx, schedule.PauseRequest{TriggerID: t.TriggerID, Pause: true, Note: ts.Paused.Note, Actor: ts.Paused.By, SinceMs: ts.Paused.SinceMs})
			if err != nil {
				return err
			}
			if res.Changed {
				fmt.Fprintf(w, "trigger %s/%s: paused, as at the source since %s by %s\n", project, ts.Name, time.UnixMilli(ts.Paused.SinceMs).UTC().Format(time.RFC3339), ts.Paused.By)
			}
		}
	}
	if st.Paused != nil {
		res, err := b.ProjectPause.ProjectPause(ctx, schedule.ProjectPauseRequest{Project: project, Pause: true, Note: st.Paused.Note, Actor: st.Paused.By, SinceMs: st.Paused.SinceMs})
		if err != nil {
			return err
		}
		if res.Changed {
			fmt.Fprintf(w, "project %s: paused, as at the source since %s by %s\n", project, time.UnixMilli(st.Paused.SinceMs).UTC().Format(time.RFC3339), st.Paused.By)
		}
	}
	fmt.Fprintf(textWriter{cmd.ErrOrStderr()}, "adopted the schedule positions of %d of %d triggers of project %s from %s (%d adopted at these positions already)\n", adopted, len(st.Triggers), project, path, already)
	return nil
}

// errCannotAdopt refuses an apply with --adopt-state, before it publishes,
// on a backend that cannot adopt.
var errCannotAdopt = errors.New("this build cannot adopt a handed-over state into this database")

// canAdopt says whether b has every writer adoptState uses.
func canAdopt(b *Backend) bool {
	return b.Adopt != nil && b.Pause != nil && b.ProjectPause != nil && b.Definitions != nil
}

// adoptedLine says what adopting trigger's position cursor did.
func adoptedLine(project, trigger string, cursor int64, res schedule.AdoptResult) string {
	at := time.UnixMilli(cursor).UTC().Format(time.RFC3339)
	if res == schedule.AdoptedAlready {
		return fmt.Sprintf("trigger %s/%s: unchanged, already adopted at this position (next occurrence %s when adopted)", project, trigger, at)
	}
	return fmt.Sprintf("trigger %s/%s: adopted, next occurrence %s", project, trigger, at)
}

// adoptFailed says which trigger's adoption failed and what the ones
// before it did.
func adoptFailed(err error, project, trigger string, adopted int) error {
	if qlerror.ReasonOf(err) == schedule.RefusalAdoptOverScheduled {
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "project %s, trigger %s (the definitions are applied; %d triggers before it adopted their positions)", project, trigger, adopted).
			Because(schedule.RefusalAdoptOverScheduled, "project", project, "trigger", trigger)
	}
	return err
}
