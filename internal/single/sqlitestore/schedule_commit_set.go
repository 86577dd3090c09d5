package sqlitestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// commitSet commits the decisions of idx that a page can write set-based,
// in tx, before the others are committed decision by decision: one
// statement re-reads every such row's facts, each decision is verified
// from its own row's facts exactly as commitDecision verifies it, and a
// handful of multi-row statements write the decisions that passed (the
// fenced cursor update first, returning the rows it moved, then their
// Runs, Attempts and events). Refused decisions get their results in out
// and write nothing.
//
// A decision is written set-based when it is the first of its trigger in
// the page, passes no occurrence over (the ledger and its notifications
// are written decision by decision) and, if it admits, its trigger's
// overlap policy is allow (the others read and may cancel the trigger's
// unfinished Runs). An admission whose occurrence the re-read finds with
// a Run that may have been admitted while the clock read later
// (schedule.MayHaveItsRun) goes decision by decision too, which passes it
// over with its ledger entry. rest is what is left to commit decision by
// decision, in page order: the decisions not written set-based, or all of idx when
// the set-based read or write failed (undone to its savepoint: which row
// failed it the error does not say, and one row's failure must never fail
// the others). written are the decisions the set-based write left standing
// in tx, with what each wrote in actions. intact is false when SQLite ended
// the transaction; nothing of it stands.
func (s *Store) commitSet(ctx context.Context, tx *txn, ps []schedule.CommitParams, idx []int, out []schedule.CommitResult,
	actions map[int]wrote,
) (rest, written []int, intact bool) {
	set, rest := setBased(ps, idx)
	if len(set) == 0 {
		return rest, nil, true
	}
	// As in commitRow, the statements run detached from the caller's
	// cancellation, which is checked before COMMIT.
	sctx := context.WithoutCancel(ctx)
	facts, err := readPage(sctx, tx, ps, set)
	if err != nil {
		return idx, nil, true
	}
	plans := map[planKey]plan{}
	var write []int
	execIDs := make(map[int]string, len(set))
	for _, i := range set {
		f, found := facts[i]
		if found && f.occurred && schedule.MayHaveItsRun(ps[i].Ticket, ps[i].Decision) {
			rest = append(rest, i)
			continue
		}
		execID, err := judgeSet(sctx, tx, ps[i], f, found, plans)
		var v *verdict
		switch {
		case err == nil:
			write = append(write, i)
			execIDs[i] = execID
		case errors.As(err, &v):
			out[i] = v.reason.Result()
			out[i].Err = v.err
		default:
			return idx, nil, true
		}
	}
	// A decision sent back to rest goes before its trigger's later ones.
	slices.Sort(rest)
	if len(write) == 0 {
		return rest, nil, true
	}
	moved, atMs, err := s.writeSet(sctx, tx, ps, write, execIDs)
	if err != nil {
		if _, err := tx.ExecContext(sctx, qSchedulePageRollback); err != nil {
			return nil, nil, false
		}
		if _, err := tx.ExecContext(sctx, qSchedulePageRelease); err != nil {
			return nil, nil, false
		}
		return idx, nil, true
	}
	for _, i := range write {
		if !moved[ps[i].Ticket.TriggerID] {
			out[i] = schedule.ReasonStateVersionChanged.Result()
			continue
		}
		written = append(written, i)
		// Nothing passed: setBased leaves every decision that passes an
		// occurrence over to the ledger's decision-by-decision write.
		actions[i] = wrote{action: ps[i].Decision.Action, atMs: atMs}
	}
	return rest, written, true
}

// setBased splits idx into the decisions commitSet writes set-based and
// the rest, each in page order.
func setBased(ps []schedule.CommitParams, idx []int) (set, rest []int) {
	seen := make(map[string]bool, len(idx))
	for _, i := range idx {
		tk, d := ps[i].Ticket, ps[i].Decision
		first := !seen[tk.TriggerID]
		seen[tk.TriggerID] = true
		if first && len(d.Passed) == 0 && (d.Action != schedule.Admit || tk.Cron.Overlap == trigger.OverlapAllow) {
			set = append(set, i)
		} else {
			rest = append(rest, i)
		}
	}
	return set, rest
}

// pageFacts are one row's facts as schedule_page_read reads them.
type pageFacts struct {
	stored schedule.Stored
	// occurred: the occurrence the decision admits already has its Run.
	occurred bool
}

// readPage re-reads the facts of the decisions set of ps in one statement,
// by their positions in ps; a decision whose row is gone has none.
func readPage(ctx context.Context, tx *txn, ps []schedule.CommitParams, set []int) (map[int]pageFacts, error) {
	list := make([][]any, len(set))
	for k, i := range set {
		tk, d := ps[i].Ticket, ps[i].Decision
		var key any
		if d.Action == schedule.Admit {
			key = schedule.IdempotencyKey(tk.TriggerID, tk.TriggerRevision, d.ScheduledForMs)
		}
		list[k] = []any{i, tk.TriggerID, key}
	}
	arg, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, qSchedulePageRead, string(arg))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	facts := make(map[int]pageFacts, len(set))
	specs := newSpecCache()
	for rows.Next() {
		var f pageFacts
		var pos int
		var occurred int
		if f.stored, err = scanStored(rows, specs, &pos, &occurred); err != nil {
			return nil, err
		}
		if pos < 0 || pos >= len(ps) {
			return nil, fmt.Errorf("the page's re-read answered for position %d of %d", pos, len(ps))
		}
		f.stored.Trigger.TriggerID = ps[pos].Ticket.TriggerID
		f.occurred = occurred == 1
		facts[pos] = f
	}
	return facts, rows.Err()
}

// planKey is what verifiedExecution's answer depends on.
type planKey struct {
	taskID, digest, projectID string
	revision                  int64
}

// plan is verifiedExecution's answer for a planKey: the plan's id, or the
// verdict refusing it.
type plan struct {
	id  string
	err error
}

// judgeSet verifies p's decision from its row's facts f in the order
// commitDecision follows — the snapshot, the decision, the execution plan
// (verified once per task revision of the page), then whether its
// occurrence already has a Run — and returns the plan's id for an
// admission. A refusal is a *verdict; any other error is a failed read.
func judgeSet(ctx context.Context, tx *txn, p schedule.CommitParams, f pageFacts, found bool, plans map[planKey]plan) (string, error) {
	tk, d := p.Ticket, p.Decision
	if err := verifyStored(tk, f.stored, found); err != nil {
		return "", err
	}
	if err := checkDecision(p); err != nil {
		return "", err
	}
	if d.Action != schedule.Admit {
		return "", nil
	}
	k := planKey{taskID: tk.TaskID, digest: tk.TaskContentDigest, projectID: tk.ProjectID, revision: tk.TaskRevision}
	pl, ok := plans[k]
	if !ok {
		e, err := verifiedExecution(ctx, tx, tk)
		var v *verdict
		if err != nil && !errors.As(err, &v) {
			return "", err
		}
		pl = plan{id: e.ID, err: err}
		plans[k] = pl
	}
	if pl.err != nil {
		return "", pl.err
	}
	if f.occurred {
		return "", occurrenceExists(tk, d.ScheduledForMs, schedule.IdempotencyKey(tk.TriggerID, tk.TriggerRevision, d.ScheduledForMs))
	}
	return pl.id, nil
}

// writeSet writes the verified decisions write of ps in the page's
// savepoint: the fenced cursor updates in one statement, then the Run,
// Attempt and both events of each admission whose row it moved, three
// statements for the page. It returns the triggers whose rows moved and
// the injected clock's reading it wrote them at. On error the caller undoes
// the savepoint; on success it is released.
func (s *Store) writeSet(ctx context.Context, tx *txn, ps []schedule.CommitParams, write []int, execIDs map[int]string) (map[string]bool, int64, error) {
	if _, err := tx.ExecContext(ctx, qSchedulePageSavepoint); err != nil {
		return nil, 0, err
	}
	now := s.nowMs()
	cursors := make([][]any, len(write))
	for k, i := range write {
		tk, d := ps[i].Ticket, ps[i].Decision
		var scheduled any
		if d.Action == schedule.Admit {
			scheduled = d.ScheduledForMs
		}
		cursors[k] = []any{tk.TriggerID, tk.TriggerRevision, tk.StateVersion, tk.NextFireAtMs, d.NextFireAtMs, d.NextDueOffset(), scheduled}
	}
	arg, err := json.Marshal(cursors)
	if err != nil {
		return nil, 0, err
	}
	moved, err := movedRows(ctx, tx, string(arg), now)
	if err != nil {
		return nil, 0, err
	}
	var admits [][]any
	for _, i := range write {
		p := ps[i]
		tk, d := p.Ticket, p.Decision
		if d.Action != schedule.Admit || !moved[tk.TriggerID] {
			continue
		}
		admits = append(admits, []any{p.RunID, tk.ProjectID, tk.TaskID, tk.TaskRevision, tk.TriggerID, tk.TriggerRevision, execIDs[i],
			schedule.IdempotencyKey(tk.TriggerID, tk.TriggerRevision, d.ScheduledForMs), d.ScheduledForMs, d.FireAtMs, p.AttemptID})
	}
	if len(admits) > 0 {
		if arg, err = json.Marshal(admits); err != nil {
			return nil, 0, err
		}
		if err := insertAdmissions(ctx, tx, string(arg), len(admits), now); err != nil {
			return nil, 0, err
		}
	}
	if _, err := tx.ExecContext(ctx, qSchedulePageRelease); err != nil {
		return nil, 0, err
	}
	return moved, now, nil
}

// movedRows runs the page's fenced cursor update and returns the triggers
// whose rows it moved.
func movedRows(ctx context.Context, tx *txn, cursors string, now int64) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, qSchedulePageAdvance, cursors, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	moved := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		moved[id] = true
	}
	return moved, rows.Err()
}

// insertAdmissions writes n admissions' Runs, Attempts and events from one
// JSON list, failing unless each statement wrote every admission's rows.
func insertAdmissions(ctx context.Context, tx *txn, admits string, n int, now int64) error {
	for _, st := range []struct {
		q    string
		args []any
		want int
	}{
		{qRunPageInsert, []any{admits, now}, n},
		{qAttemptPageInsert, []any{admits, now, string(task.LocalProcess)}, n},
		{qEventPageInsert, []any{admits, now, run.EventCreated, run.EventQueued, string(task.LocalProcess)}, 2 * n},
	} {
		res, err := tx.ExecContext(ctx, st.q, st.args...)
		if err != nil {
			return err
		}
		got, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if got != int64(st.want) {
			return fmt.Errorf("the page's write of %d admissions wrote %d rows where %d were due", n, got, st.want)
		}
	}
	return nil
}
