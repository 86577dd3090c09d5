package sqlitestore

import (
	"context"
	"errors"
	"slices"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// ScheduleCommitPage writes a page of decisions in one BEGIN IMMEDIATE
// transaction, so the page pays one lock acquisition and one WAL commit
// instead of one per decision, at the same (routine) durability as
// ScheduleCommit. Most decisions are written set-based (commitSet): one
// statement re-reads every row's facts, each decision is verified from its
// own row's facts with the same schedule.VerifySnapshot,
// schedule.CheckDecision and plan checks as ScheduleCommit, and a few
// multi-row statements write the decisions that passed, each row's cursor
// update carrying its own state_version fence. The others — a second
// decision for a trigger, one that passes occurrences over (the ledger),
// an admission under an overlap policy other than allow — and every
// decision of a page whose set-based write failed run exactly as
// ScheduleCommit runs them, each inside a savepoint of its own: a decision
// that is refused or whose write fails is undone to its savepoint and
// reported with its own reason, and the page goes on. Results are
// index-aligned with ps and each is what ScheduleCommit would give that
// decision alone.
//
// If SQLite ends the whole transaction (a failure no savepoint can undo),
// the decision that caused it keeps its failure and the others are
// committed again from scratch, decision by decision, in a fresh
// transaction; each such round after the first judges at least one
// decision, so a page costs at most one transaction more than the
// per-decision path. A cancelled ctx rolls the transaction back: every
// decision it would have written is cancelled. A lost COMMIT reply makes
// every written decision outcome_unknown.
//
// err is set only when no decision could be judged (the writer was never
// obtained or the transaction never began); the results then all carry
// that failure.
func (s *Store) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	out := make([]schedule.CommitResult, len(ps))
	pending := make([]int, 0, len(ps))
	for i, p := range ps {
		if p.Ticket.Lease != nil {
			out[i] = schedule.ReasonInvalidParams.Result()
			out[i].Err = qlerror.New(qlerror.Internal, "trigger %s: a single-node store was handed a ticket with a cluster claim", p.Ticket.TriggerID)
			continue
		}
		pending = append(pending, i)
	}
	judged := len(pending) < len(ps)
	bySet := true
	for len(pending) > 0 {
		var groupErr error
		before := len(pending)
		err := s.withWriter(ctx, routine, func() error {
			pending, groupErr = s.commitGroup(ctx, ps, pending, out, bySet)
			return nil
		})
		bySet = false
		if err == nil && groupErr == nil {
			// A round whose set-based write SQLite ended judged nothing.
			judged = judged || len(pending) < before
			continue
		}
		if err == nil {
			err = groupErr
		}
		for _, i := range pending {
			out[i] = withErr(failure(ctx, err))
		}
		if !judged {
			_, err = failure(ctx, err)
			return out, err
		}
		return out, nil
	}
	return out, nil
}

// commitGroup commits the decisions idx of ps in one transaction, setting
// their results in out: set-based where it can (commitSet) when bySet,
// decision by decision otherwise. It returns the decisions to commit again
// in a fresh transaction (only after SQLite ended this one), or an error
// when the transaction could not begin, in which case no decision was
// judged.
func (s *Store) commitGroup(ctx context.Context, ps []schedule.CommitParams, idx []int, out []schedule.CommitResult, bySet bool) ([]int, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return idx, err
	}
	actions := make(map[int]wrote, len(idx))
	// finished holds the Runs each written decision finished, reported
	// once the transaction commits.
	finished := make(map[int]run.FinishCounts)
	rows, written := idx, make([]int, 0, len(idx))
	if bySet {
		var intact bool
		if rows, written, intact = s.commitSet(ctx, tx, ps, idx, out, actions); !intact {
			// SQLite ended the transaction in the set-based write: nothing
			// of the page stands, and it goes again decision by decision.
			_ = tx.Rollback()
			return idx, nil
		}
	}
	for k, i := range rows {
		if ctx.Err() != nil {
			_ = tx.Rollback()
			cancelAll(out, written, rows[k:])
			return nil, nil
		}
		res, w, intact := s.commitRow(ctx, tx, ps[i])
		finished[i], res.Finished = res.Finished, run.FinishCounts{}
		out[i] = res
		if w.action != "" {
			written = append(written, i)
			actions[i] = w
		}
		if intact {
			continue
		}
		_ = tx.Rollback()
		if ctx.Err() != nil {
			cancelAll(out, written, rows[k+1:])
			return nil, nil
		}
		// SQLite ended the transaction: the decisions it had written are
		// gone with it and, like those not reached, were judged by
		// nothing. They go again; this row keeps its own failure.
		again := append(written, rows[k+1:]...)
		slices.Sort(again)
		return again, nil
	}
	if len(written) == 0 {
		_ = tx.Rollback()
		return nil, nil
	}
	if ctx.Err() != nil {
		_ = tx.Rollback()
		cancelAll(out, written, nil)
		return nil, nil
	}
	if err := tx.Commit(); err != nil {
		// As in ScheduleCommit: a full disk wrote nothing; otherwise the
		// write may or may not be durable, and it is never retried blindly.
		for _, i := range written {
			out[i] = commitFailed(err).Result()
			out[i].Err = mapErr(err, "commit schedule decision")
		}
		return nil, nil
	}
	for _, i := range written {
		out[i] = resultOf(ps[i], actions[i])
		out[i].Finished = finished[i]
	}
	return nil, nil
}

// commitRow runs one decision inside its own savepoint. w, when its action
// is set, is what the decision wrote, standing in the transaction (its result is set
// once the transaction commits; res carries only the Runs it finished);
// intact is false when the transaction can no
// longer be trusted to hold only the decisions before this one — SQLite
// ended it, or the savepoint could not be opened, undone or closed.
func (s *Store) commitRow(ctx context.Context, tx *txn, p schedule.CommitParams) (res schedule.CommitResult, w wrote, intact bool) {
	// The statements run detached from the caller's cancellation: watching
	// it costs every statement a goroutine, and it is checked between
	// decisions and before COMMIT instead (a cancellation also rolls the
	// transaction back by itself, failing the statements after it).
	sctx := context.WithoutCancel(ctx)
	if _, err := tx.ExecContext(sctx, qScheduleRowSavepoint); err != nil {
		return withErr(failure(ctx, err)), wrote{}, false
	}
	w, finished, err := s.commitDecision(sctx, tx, p)
	if err == nil {
		if _, err := tx.ExecContext(sctx, qScheduleRowRelease); err != nil {
			return withErr(failure(ctx, err)), wrote{}, false
		}
		res.Finished = finished
		return res, w, true
	}
	var v *verdict
	if errors.As(err, &v) {
		res = v.reason.Result()
		res.Err = v.err
	} else {
		res = withErr(failure(ctx, err))
	}
	// Undoing to the savepoint fails when SQLite already rolled the whole
	// transaction back (the savepoint is gone with it).
	if _, rerr := tx.ExecContext(sctx, qScheduleRowRollback); rerr != nil {
		return res, wrote{}, false
	}
	if _, rerr := tx.ExecContext(sctx, qScheduleRowRelease); rerr != nil {
		return res, wrote{}, false
	}
	return res, wrote{}, true
}

// cancelAll reports as cancelled the decisions a cancelled transaction
// took with it and those it never reached.
func cancelAll(out []schedule.CommitResult, groups ...[]int) {
	for _, g := range groups {
		for _, i := range g {
			out[i] = schedule.ReasonCancelled.Result()
		}
	}
}

// withErr puts a failure's detail into its result, as the page carries it.
func withErr(res schedule.CommitResult, err error) schedule.CommitResult {
	res.Err = err
	return res
}
