package pgstore

// Statements of the admin role's publishing transactions (SERIALIZABLE).

const (
	// Publishing needs an active project; SSI makes a concurrent archive
	// and publish conflict instead of both committing. Also samples the
	// database clock every timestamp of the transaction uses.
	sqlProjectStatusForPublish = `SELECT status, (extract(epoch FROM clock_timestamp()) * 1000)::bigint FROM qinglong.projects WHERE id = $1`

	sqlProjectByName = `SELECT id, name, status FROM qinglong.projects WHERE name = $1`
	// The row lock serialises saves of one project.
	sqlProjectLock   = `SELECT name, status FROM qinglong.projects WHERE id = $1 FOR UPDATE`
	sqlProjectInsert = `INSERT INTO qinglong.projects (id, name, status, created_at_ms, updated_at_ms)
		VALUES ($1, $2, $3, (extract(epoch FROM clock_timestamp()) * 1000)::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)`
	sqlProjectUpdate = `UPDATE qinglong.projects SET name = $2, status = $3, updated_at_ms = greatest(created_at_ms, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) WHERE id = $1`

	sqlTaskCurrentByName = `SELECT r.task_id, r.project_id, r.revision, r.name, r.enabled, r.labels, r.command, r.content_digest, r.mutation_id, r.created_at_ms
		FROM qinglong.tasks t JOIN qinglong.task_revisions r ON r.task_id = t.id AND r.revision = t.current_revision
		WHERE t.project_id = $1 AND t.name = $2`

	sqlTriggerCurrentByName = `SELECT r.trigger_id, r.project_id, r.task_id, r.revision, r.task_revision, r.task_content_digest, r.name, r.enabled,
		r.cron_expression, r.cron_timezone, r.misfire_policy, r.content_digest, r.mutation_id, r.created_at_ms
		FROM qinglong.triggers t JOIN qinglong.trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
		WHERE t.project_id = $1 AND t.name = $2`
)

// Eligibility refresh (pg-0002): sets trigger_schedules.schedulable of the
// rows in scope to exactly the claim's eligibility test, writing only rows
// whose flag changes. One runs last in every publishing transaction that
// can change eligibility, scoped to the rows that change could affect, so
// the flag is never false for a row a claim may take.
const (
	sqlEligibilityHead = `UPDATE qinglong.trigger_schedules s
		SET schedulable = e.eligible
		FROM (SELECT s2.trigger_id,
		             coalesce(p.status = 'active' AND tg.current_revision = s2.trigger_revision AND tr.enabled
		                      AND tr.kind = 'qinglong/cron@v1' AND tk.current_revision = tr.task_revision, false) AS eligible
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
)
