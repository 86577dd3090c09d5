package console

import (
	"context"
	"fmt"

	"github.com/qinglong/qinglong/internal/core/run"
)

// projectCap is a project's slot cap (maxRunning) as its page says it:
// how many of its Runs hold a slot now (dispatching or running, as the
// dispatcher counts them) and, while they fill the cap, how many queued
// Runs wait for it (project_busy).
type projectCap struct {
	Max, Running int
	// Held counts the queued Runs the cap holds back, 0 while it has room.
	Held int
	// RunningMore and HeldMore say a count reached run.MaxPageSize, one
	// listing's page, and that more may be there.
	RunningMore, HeldMore bool
}

// capOf reads the slot cap max of the project of id; nil without a cap,
// or where the console reads no Runs.
func (c *Console) capOf(ctx context.Context, projectID string, max int) (*projectCap, error) {
	if max == 0 || c.cfg.Runs == nil {
		return nil, nil
	}
	out := projectCap{Max: max}
	for _, st := range []run.State{run.Dispatching, run.Running} {
		list, _, err := c.cfg.Runs.RunList(ctx, run.ListParams{ProjectID: projectID, State: st, Limit: run.MaxPageSize})
		if err != nil {
			return nil, err
		}
		out.Running += len(list)
		out.RunningMore = out.RunningMore || len(list) == run.MaxPageSize
	}
	if out.Running < max {
		return &out, nil
	}
	held, err := run.CountQueued(ctx, c.cfg.Runs, run.ListParams{ProjectID: projectID})
	if err != nil {
		return nil, err
	}
	out.Held, out.HeldMore = held, held >= run.QueuedCountCap
	return &out, nil
}

// capText says cap in l: how many of the project's Runs run of how many
// it may, and, while the cap is full and holds queued Runs back, how many
// and what frees them.
func capText(l string, cap *projectCap) string {
	key := "proj.cap"
	if cap.RunningMore {
		key += ".more"
	}
	out := fmt.Sprintf(tr(l, key), cap.Running, cap.Max)
	if cap.Held == 0 {
		return out
	}
	key = "proj.capheld"
	if cap.HeldMore {
		key += ".more"
	}
	return fmt.Sprintf(tr(l, "proj.capjoin"), out, fmt.Sprintf(trCount(l, key, cap.Held), cap.Held))
}
