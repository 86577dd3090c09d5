package pgstore

// Eligibility refresh (pg-0002): sets trigger_schedules.schedulable of the
// rows in scope to exactly the claim's eligibility test, writing only rows
// whose flag changes. One runs last in every publishing transaction that
// can change eligibility, scoped to the rows that change could affect, so
// the flag is never false for a row a claim may take.
//
// These three are composed here rather than written out in sql/*.sql: they
// differ only in their scope, and the eligibility test itself must be
// written once, identical for every scope, so no scope can drift from what
// the claim checks.
const (
	sqlEligibilityHead = `UPDATE qinglong.trigger_schedules s
		SET schedulable = e.eligible
		FROM (SELECT s2.trigger_id,
		             coalesce(p.status = 'active' AND tg.current_revision = s2.trigger_revision AND tr.enabled
		                      AND tr.kind = 'qinglong/cron@v1' AND tk.current_revision = tr.task_revision
		                      AND NOT s2.paused, false) AS eligible
		        FROM qinglong.trigger_schedules s2
		        LEFT JOIN qinglong.projects p ON p.id = s2.project_id
		        LEFT JOIN qinglong.triggers tg ON tg.id = s2.trigger_id
		        LEFT JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s2.trigger_id AND tr.revision = s2.trigger_revision
		        LEFT JOIN qinglong.tasks tk ON tk.id = tr.task_id
		       WHERE `
	sqlEligibilityTail = `) e
		WHERE s.trigger_id = e.trigger_id AND s.schedulable IS DISTINCT FROM e.eligible`

	// A project archived or reactivated: all its rows ($1 project id).
	sqlEligibilityOfProject = sqlEligibilityHead +
		`s2.trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1)` + sqlEligibilityTail

	// Eligibility of the rows a batch can affect: the batch's triggers
	// ($1), or the triggers on the batch's tasks ($1 project id, $2 task
	// ids; triggers never move to another task).
	sqlEligibilityOfTriggers = sqlEligibilityHead + `s2.trigger_id = ANY($1::text[]::uuid[])` + sqlEligibilityTail
	sqlEligibilityOfTasks    = sqlEligibilityHead +
		`s2.trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1 AND task_id = ANY($2::text[]::uuid[]))` + sqlEligibilityTail
)
