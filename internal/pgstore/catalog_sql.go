package pgstore

// Set-based statements of a publishing transaction: each takes one array
// per column (ids as text, cast here) and handles every item of a batch in
// one round trip.

const (
	sqlTasksByNames = `SELECT r.task_id, r.project_id, r.revision, r.name, r.enabled, r.labels, r.command, r.content_digest, r.mutation_id, r.created_at_ms
		FROM qinglong.tasks t JOIN qinglong.task_revisions r ON r.task_id = t.id AND r.revision = t.current_revision
		WHERE t.project_id = $1 AND t.name = ANY($2::text[])`
	sqlTriggersByNames = `SELECT r.trigger_id, r.project_id, r.task_id, r.revision, r.task_revision, r.task_content_digest, r.name, r.enabled,
		r.cron_expression, r.cron_timezone, r.misfire_policy, r.content_digest, r.mutation_id, r.created_at_ms
		FROM qinglong.triggers t JOIN qinglong.trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
		WHERE t.project_id = $1 AND t.name = ANY($2::text[])`

	// Mutation-id replay: the revisions the (object id, mutation id) pairs
	// already wrote.
	sqlTaskReplays = `SELECT r.task_id, r.revision, r.content_digest, r.created_at_ms
		FROM qinglong.task_revisions r
		JOIN unnest($1::text[], $2::text[]) AS m(task_id, mutation_id) ON r.task_id = m.task_id::uuid AND r.mutation_id = m.mutation_id`
	sqlTriggerReplays = `SELECT r.trigger_id, r.revision, r.content_digest, r.created_at_ms
		FROM qinglong.trigger_revisions r
		JOIN unnest($1::text[], $2::text[]) AS m(trigger_id, mutation_id) ON r.trigger_id = m.trigger_id::uuid AND r.mutation_id = m.mutation_id`

	// Expected-revision fence: the heads are locked for the transaction.
	sqlTaskHeadsLock    = `SELECT id, project_id, current_revision FROM qinglong.tasks WHERE id = ANY($1::text[]::uuid[]) FOR UPDATE`
	sqlTriggerHeadsLock = `SELECT id, project_id, task_id, current_revision FROM qinglong.triggers WHERE id = ANY($1::text[]::uuid[]) FOR UPDATE`

	sqlTaskHeadsInsert = `INSERT INTO qinglong.tasks (id, project_id, name, current_revision, created_at_ms, updated_at_ms)
		SELECT u.id::uuid, u.project_id::uuid, u.name, 1, $4, $4
		FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, project_id, name)`
	sqlTaskHeadsAdvance = `UPDATE qinglong.tasks t SET name = u.name, current_revision = u.revision, updated_at_ms = greatest(t.created_at_ms, $4)
		FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(id, name, revision)
		WHERE t.id = u.id::uuid AND t.current_revision = u.revision - 1`
	sqlTaskRevisionsInsert = `INSERT INTO qinglong.task_revisions
		(task_id, revision, project_id, kind, name, enabled, labels, command, content_digest, mutation_id, created_at_ms)
		SELECT u.task_id::uuid, u.revision, u.project_id::uuid, 'qinglong/command@v1', u.name, u.enabled, u.labels::jsonb, u.command::jsonb,
		       u.content_digest, u.mutation_id, $10
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::boolean[], $6::text[], $7::text[], $8::text[], $9::text[])
		     AS u(task_id, revision, project_id, name, enabled, labels, command, content_digest, mutation_id)`
	sqlExecutionsInsert = `INSERT INTO qinglong.execution_revisions
		(task_id, task_revision, executor, id, project_id, task_content_digest, command, digest, created_at_ms)
		SELECT u.task_id::uuid, u.task_revision, u.executor, u.id, u.project_id::uuid, u.task_content_digest, u.command::jsonb, u.digest, $9
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
		     AS u(task_id, task_revision, executor, id, project_id, task_content_digest, command, digest)`

	// The pinned task revisions: each must exist, belong to the trigger's
	// project and carry the pinned digest; its enabled flag gates an
	// enabled trigger.
	sqlPinnedTaskRevisions = `SELECT r.task_id, r.revision, r.project_id, r.content_digest, r.enabled
		FROM qinglong.task_revisions r
		JOIN unnest($1::text[], $2::bigint[]) AS u(task_id, revision) ON r.task_id = u.task_id::uuid AND r.revision = u.revision`

	sqlTriggerHeadsInsert = `INSERT INTO qinglong.triggers (id, project_id, task_id, name, current_revision, created_at_ms, updated_at_ms)
		SELECT u.id::uuid, u.project_id::uuid, u.task_id::uuid, u.name, 1, $5, $5
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(id, project_id, task_id, name)`
	sqlTriggerHeadsAdvance = `UPDATE qinglong.triggers t SET name = u.name, current_revision = u.revision, updated_at_ms = greatest(t.created_at_ms, $4)
		FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(id, name, revision)
		WHERE t.id = u.id::uuid AND t.current_revision = u.revision - 1`
	sqlTriggerRevisionsInsert = `INSERT INTO qinglong.trigger_revisions
		(trigger_id, revision, project_id, task_id, task_revision, task_content_digest, kind, name, enabled,
		 cron_expression, cron_timezone, misfire_policy, content_digest, mutation_id, created_at_ms)
		SELECT u.trigger_id::uuid, u.revision, u.project_id::uuid, u.task_id::uuid, u.task_revision, u.task_content_digest, 'qinglong/cron@v1',
		       u.name, u.enabled, u.cron_expression, u.cron_timezone, u.misfire_policy, u.content_digest, u.mutation_id, $14
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::boolean[],
		            $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
		     AS u(trigger_id, revision, project_id, task_id, task_revision, task_content_digest, name, enabled,
		          cron_expression, cron_timezone, misfire_policy, content_digest, mutation_id)`
	// Schedule reset fence, for every trigger of the batch: a new revision
	// clears cursor and claim and bumps state_version and claim_version, so
	// no ticket or claim taken before this transaction can ever commit.
	sqlSchedulesUpsert = `INSERT INTO qinglong.trigger_schedules AS s
		(trigger_id, project_id, trigger_revision, next_fire_at_ms, last_scheduled_at_ms, state_version,
		 claim_owner, claim_token, claim_version, claim_expires_at_ms, updated_at_ms)
		SELECT u.trigger_id::uuid, u.project_id::uuid, u.revision, NULL, NULL, 1, NULL, NULL, 0, NULL, $4
		FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(trigger_id, project_id, revision)
		ON CONFLICT (trigger_id) DO UPDATE SET
			trigger_revision = EXCLUDED.trigger_revision,
			next_fire_at_ms = NULL,
			claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL,
			state_version = s.state_version + 1,
			claim_version = s.claim_version + 1,
			updated_at_ms = EXCLUDED.updated_at_ms`

	// Eligibility of the rows a batch can affect: the batch's triggers
	// ($1), or the triggers on the batch's tasks ($1 project id, $2 task
	// ids; triggers never move to another task).
	sqlEligibilityOfTriggers = sqlEligibilityHead + `s2.trigger_id = ANY($1::text[]::uuid[])` + sqlEligibilityTail
	sqlEligibilityOfTasks    = sqlEligibilityHead +
		`s2.trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1 AND task_id = ANY($2::text[]::uuid[]))` + sqlEligibilityTail
)
