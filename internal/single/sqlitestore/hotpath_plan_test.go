package sqlitestore

import (
	"strings"
	"testing"
)

// The dispatcher's queue finds the projects at their maxRunning once per
// read, before its walk (a list SQLite fills once, not a subquery per
// queued Run), and that read, the start's check of the cap and the
// waiting reason's count all read runs_unfinished_state (the Runs holding
// a slot), never runs_project, every Run a project ever had: a capped
// project's backlog of queued Runs no longer costs each of them a count
// of its whole history.
func TestTheCapCountsReadOnlyTheRunsHoldingASlot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pending := strings.Join(e.queryPlan(t, qAttemptsPending, 16), "\n")
	if !strings.Contains(pending, "LIST SUBQUERY") || !strings.Contains(pending, "MATERIALIZE at_cap") || strings.Contains(pending, "CORRELATED SCALAR SUBQUERY 1\nSEARCH x") {
		t.Fatalf("the pending queue does not find the projects at their cap once, before its walk:\n%s", pending)
	}
	for name, plan := range map[string]string{
		"pending queue": pending,
		"start's cap":   strings.Join(e.queryPlan(t, qProjectCapOfRun, "run"), "\n"),
		"waiting":       strings.Join(e.queryPlan(t, qRunWaiting, "run"), "\n"),
	} {
		if strings.Contains(plan, "runs_project") || !strings.Contains(plan, "SEARCH x USING INDEX runs_unfinished_state") && !strings.Contains(plan, "SEARCH x USING COVERING INDEX runs_unfinished_state") {
			t.Fatalf("the %s counts the Runs holding a slot through another index than runs_unfinished_state:\n%s", name, plan)
		}
	}
}

// The overview's backlog of a user bound to projects starts from those
// projects, by name, and reads their triggers' schedule rows by key: it
// never walks the due index (trigger_schedules_due), past other
// projects' due rows.
func TestABoundBacklogReadsOnlyItsProjectsScheduleRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := e.queryPlan(t, qMonitorBacklogInProjects, e.clock.NowMs(), 100, `["own"]`)
	joined := strings.Join(plan, "\n")
	if strings.Contains(joined, "trigger_schedules_due") || !strings.Contains(joined, "SEARCH p USING INDEX") ||
		!strings.Contains(joined, "SEARCH t USING INDEX sqlite_autoindex_triggers_2 (project_id=?)") ||
		!strings.Contains(joined, "SEARCH s USING INDEX sqlite_autoindex_trigger_schedules_1 (trigger_id=?)") {
		t.Fatalf("the bound backlog does not read its projects' triggers' rows by key:\n%s", joined)
	}
}

// A page of the audit listing reads each table backwards along its time
// index from the cursor's millisecond, at most a page of each (the first
// page and a page after a cursor alike), and sorts only those: never a
// scan of either table.
func TestAnAuditPageReadsEachTableAlongItsTimeIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for name, args := range map[string][]any{
		"first page":        {0, "", "", "", nil, nil, nil, 101},
		"page after cursor": {0, "alice", "", "", int64(5), "a0", `["own"]`, 101},
	} {
		joined := strings.Join(e.queryPlan(t, qAuditList, args...), "\n")
		if !strings.Contains(joined, "SEARCH l USING INDEX audit_log_at (at_ms>? AND at_ms<?)") ||
			!strings.Contains(joined, "SEARCH a USING INDEX trigger_schedule_audit_at (at_ms>? AND at_ms<?)") ||
			strings.Contains(joined, "SCAN l") || strings.Contains(joined, "SCAN a") {
			t.Fatalf("%s: the audit listing does not read each table along its time index:\n%s", name, joined)
		}
	}
}
