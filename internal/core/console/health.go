package console

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// backlogLimit bounds the backlog read: the overview says "at least" past
// it rather than counting a large backlog row by row.
const backlogLimit = 1000

// lag is the admission lag of recent Runs: how long after its due time
// each was created, as percentiles.
type lag struct {
	N        int
	P50, P99 time.Duration
}

// admissionLag measures the lag of the Runs given (the overview's recent
// page, so the read stays bounded) created since sinceMs. Only the clock's
// Runs admitted within graceMs of their due time count, as in
// qinglong_scheduler_admission_lag_seconds: a request's Run is due when it
// is asked for (run now, re-run) or was due long before (a backfill of
// past occurrences), and a later admission is a catch-up (after an outage
// or a resume), whose lag is the outage's; counted, either would hide how
// late the schedule admits for a day.
func admissionLag(runs []run.Run, sinceMs, graceMs int64) *lag {
	var ds []int64
	for _, r := range runs {
		due := r.DueAtMs
		if due == 0 {
			due = r.ScheduledForMs
		}
		if lagMs := r.CreatedAtMs - due; r.Origin == run.OriginClock && r.CreatedAtMs >= sinceMs && lagMs >= 0 && lagMs <= graceMs {
			ds = append(ds, lagMs)
		}
	}
	if len(ds) == 0 {
		return nil
	}
	slices.Sort(ds)
	at := func(q float64) time.Duration {
		return time.Duration(ds[min(len(ds)-1, int(q*float64(len(ds))))]) * time.Millisecond
	}
	return &lag{N: len(ds), P50: at(0.50), P99: at(0.99)}
}

// backlog is the due, unclaimed schedule rows.
type backlog struct {
	Due           int
	AtLeast       bool
	OldestDueAtMs *int64
}

// backlog is the overview's: a user bound to projects is counted its
// projects' due rows alone.
func (c *Console) backlog(ctx context.Context) *backlog {
	if c.cfg.Backlog == nil {
		return nil
	}
	m, err := c.cfg.Backlog(ctx, backlogLimit, boundOf(ctx).in())
	if err != nil {
		c.cfg.Log.Warn("console: reading the backlog", "code", CodeBacklogFailed, "err", err)
		return nil
	}
	return &backlog{Due: m.Due, AtLeast: m.Due >= backlogLimit, OldestDueAtMs: m.OldestDueAtMs}
}

// Worker is one remote worker as the workers page shows it (the cluster's
// `ql workers list`).
type Worker struct {
	Name  string
	State string
	// Stopping: it drains because its process stops on its own (a
	// signal), not because an admin drained it.
	Stopping bool
	// Resumed: it drains because its process heard an admin's drain that
	// `ql workers resume` lifted since; the process still exits once its
	// commands end, and takes work when started again.
	Resumed bool
	// Sessions counts its live session (1 while a process runs with the
	// credential, a registration replacing the one before, else 0);
	// Capacity and FreeSlots are that session's, as the worker last
	// reported them.
	Sessions, Capacity, FreeSlots int
	LastHeartbeatMs               *int64
	// HeartbeatAgeMs is how long before the page was read, in database
	// time, the last heartbeat was; nil with none. SilentForMs, once a
	// worker with a live session has gone two heartbeats unheard (a frozen
	// process keeps its session until the lease passes), is how long; 0
	// otherwise.
	HeartbeatAgeMs *int64
	SilentForMs    int64
	// Labels are, in a list of one, the label set a task's placement
	// must find all of for the worker to run it: the live session's (the
	// credential's plus those its process gave with ql-worker --labels),
	// or the credential's while no process runs.
	Labels []map[string]string
	// Reads are the grant fields its live process reads (projectEnv);
	// empty for a worker built before them, which is not given the Runs
	// of a project with an env, and while none runs (Sessions 0).
	Reads []string
}

// fleet is the overview's count of the cluster's workers.
type fleet struct {
	Workers, Sessions, FreeSlots int
}

func (c *Console) fleet(ctx context.Context) *fleet {
	if c.cfg.Workers == nil {
		return nil
	}
	list, err := c.cfg.Workers(ctx)
	if err != nil {
		c.cfg.Log.Warn("console: listing workers", "code", CodeWorkersFailed, "err", err)
		return nil
	}
	f := &fleet{}
	for _, w := range list {
		if w.Sessions > 0 {
			f.Workers++
		}
		f.Sessions += w.Sessions
		f.FreeSlots += w.FreeSlots
	}
	return f
}

// local is what the workers address shows on a single-node server.
type local struct {
	// Concurrency is how many commands its executor runs at once.
	Concurrency int
	// FullBinary: the full ql binary serves, which also serves the
	// cluster, so the page may say where remote workers belong; ql-edge
	// has no cluster to name.
	FullBinary bool
}

// workers lists the cluster's workers with their live sessions, free slots
// and last heartbeat. A single-node server has none and misses none: it
// runs every command itself, so its nav offers no such page, and its
// address (a bookmark, a link from a cluster's console or the docs)
// answers with where the commands run, as a page of its own rather than
// an error, since nothing is wrong.
func (c *Console) workers(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Workers == nil {
		c.render(w, r, http.StatusOK, "local", s, local{Concurrency: c.cfg.LocalConcurrency, FullBinary: !c.edge()})
		return
	}
	list, err := c.cfg.Workers(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.render(w, r, http.StatusOK, "workers", s, list)
}
