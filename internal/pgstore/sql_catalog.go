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

	// Mutation-id replay: the revision a mutation id already wrote, if any.
	sqlTaskRevisionByMutation = `SELECT revision, content_digest, created_at_ms FROM qinglong.task_revisions WHERE task_id = $1 AND mutation_id = $2`
	// Expected-revision fence: the head row is locked for the transaction.
	sqlTaskHeadLock       = `SELECT project_id, current_revision FROM qinglong.tasks WHERE id = $1 FOR UPDATE`
	sqlTaskHeadInsert     = `INSERT INTO qinglong.tasks (id, project_id, name, current_revision, created_at_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $5)`
	sqlTaskHeadUpdate     = `UPDATE qinglong.tasks SET name = $2, current_revision = $3, updated_at_ms = greatest(created_at_ms, $4) WHERE id = $1 AND current_revision = $3 - 1`
	sqlTaskRevisionInsert = `INSERT INTO qinglong.task_revisions
		(task_id, revision, project_id, kind, name, enabled, labels, command, content_digest, mutation_id, created_at_ms)
		VALUES ($1, $2, $3, 'qinglong/command@v1', $4, $5, $6, $7, $8, $9, $10)`
	// Written in the same transaction as its enabled task revision.
	sqlExecutionInsert = `INSERT INTO qinglong.execution_revisions
		(task_id, task_revision, executor, id, project_id, task_content_digest, command, digest, created_at_ms)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`
	sqlTaskCurrentByName = `SELECT r.task_id, r.project_id, r.revision, r.name, r.enabled, r.labels, r.command, r.content_digest, r.mutation_id, r.created_at_ms
		FROM qinglong.tasks t JOIN qinglong.task_revisions r ON r.task_id = t.id AND r.revision = t.current_revision
		WHERE t.project_id = $1 AND t.name = $2`

	sqlTriggerRevisionByMutation = `SELECT revision, content_digest, created_at_ms FROM qinglong.trigger_revisions WHERE trigger_id = $1 AND mutation_id = $2`
	// The pinned task revision must exist, belong to the project and carry
	// the pinned digest; its enabled flag gates an enabled trigger.
	sqlPinnedTaskRevision    = `SELECT project_id, content_digest, enabled FROM qinglong.task_revisions WHERE task_id = $1 AND revision = $2`
	sqlTriggerHeadLock       = `SELECT task_id, current_revision FROM qinglong.triggers WHERE id = $1 FOR UPDATE`
	sqlTriggerHeadInsert     = `INSERT INTO qinglong.triggers (id, project_id, task_id, name, current_revision, created_at_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $6)`
	sqlTriggerHeadUpdate     = `UPDATE qinglong.triggers SET name = $2, current_revision = $3, updated_at_ms = greatest(created_at_ms, $4) WHERE id = $1 AND current_revision = $3 - 1`
	sqlTriggerRevisionInsert = `INSERT INTO qinglong.trigger_revisions
		(trigger_id, revision, project_id, task_id, task_revision, task_content_digest, kind, name, enabled,
		 cron_expression, cron_timezone, misfire_policy, content_digest, mutation_id, created_at_ms)
		VALUES ($1, $2, $3, $4, $5, $6, 'qinglong/cron@v1', $7, $8, $9, $10, $11, $12, $13, $14)`
	// Schedule reset fence (SPEC §4): a new revision clears cursor and claim
	// and bumps state_version and claim_version, so no ticket or claim taken
	// before this transaction can ever commit.
	sqlScheduleUpsert = `INSERT INTO qinglong.trigger_schedules AS s
		(trigger_id, project_id, trigger_revision, next_fire_at_ms, last_scheduled_at_ms, state_version,
		 claim_owner, claim_token, claim_version, claim_expires_at_ms, updated_at_ms)
		VALUES ($1, $2, $3, NULL, NULL, 1, NULL, NULL, 0, NULL, $4)
		ON CONFLICT (trigger_id) DO UPDATE SET
			trigger_revision = EXCLUDED.trigger_revision,
			next_fire_at_ms = NULL,
			claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL,
			state_version = s.state_version + 1,
			claim_version = s.claim_version + 1,
			updated_at_ms = EXCLUDED.updated_at_ms`
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

	// A trigger publish: its own row ($1 trigger id).
	sqlEligibilityOfTrigger = sqlEligibilityHead + `s2.trigger_id = $1` + sqlEligibilityTail
	// A task publish moves the task head: the rows of the triggers on that
	// task ($1 project id, $2 task id; triggers never move to another task).
	sqlEligibilityOfTask = sqlEligibilityHead +
		`s2.trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1 AND task_id = $2)` + sqlEligibilityTail
	// A project archived or reactivated: all its rows ($1 project id).
	sqlEligibilityOfProject = sqlEligibilityHead +
		`s2.trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1)` + sqlEligibilityTail
)
