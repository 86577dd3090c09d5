-- The notification outbox (notify.go): written by the runtime role in the
-- transaction that finishes a Run, delivered by every replica together.

-- name: NotifyFacts
-- A finished Run's facts for its notifications, read in its finishing
-- transaction: the project's settings ('' without any), the names people
-- read, the database clock, the trigger's display title now ('' none),
-- the Run's end as that transaction stamped it (a late report's command
-- end, a lost attempt's last renewal; the clock when none is stamped) and
-- the project's display title now ('' none).
SELECT coalesce(p.notifications, ''), p.name, r.project_id, coalesce(r.trigger_id::text, ''),
       coalesce((SELECT tr.name FROM qinglong.trigger_revisions tr WHERE tr.trigger_id = r.trigger_id AND tr.revision = r.trigger_revision), ''),
       r.scheduled_for_ms, {{now_ms}}, coalesce((SELECT tg.title FROM qinglong.triggers tg WHERE tg.id = r.trigger_id), ''),
       coalesce(r.finished_at_ms, {{now_ms}}), p.title
  FROM qinglong.runs r JOIN qinglong.projects p ON p.id = r.project_id
 WHERE r.id = $1

-- name: NotifyRunFacts
-- What ran, for a Run whose project has notification settings (read after
-- NotifyFacts, so a project without any pays nothing more): the task's
-- name and display title now ('' none) and the Run's last attempt, its number, its command's exit code
-- and its id (0, NULL and '' without one), through attempts_run_number_key;
-- when its first attempt started (NULL if none did) and run.created's "manual"
-- key, its origin ('': the clock).
SELECT (SELECT t.name FROM qinglong.task_revisions t WHERE t.task_id = r.task_id AND t.revision = r.task_revision),
       coalesce((SELECT tk.title FROM qinglong.tasks tk WHERE tk.id = r.task_id), ''),
       coalesce(a.number, 0), a.exit_code, coalesce(a.id::text, ''),
       (SELECT min(s.started_at_ms) FROM qinglong.attempts s WHERE s.run_id = r.id), coalesce((SELECT e.payload->>'manual' FROM qinglong.run_events e WHERE e.run_id = r.id AND e.seq = 1), '')
  FROM qinglong.runs r
  LEFT JOIN LATERAL (SELECT number, exit_code, id FROM qinglong.attempts WHERE run_id = r.id ORDER BY number DESC LIMIT 1) a ON true
 WHERE r.id = $1

-- name: NotifyOutput
-- The end of an attempt's log, for a notification that quotes its output:
-- the last chunks, newest first, each cut to its last $2 bytes, with the
-- offset in the log where what is returned starts (0: the log's start).
-- Read in the finishing transaction only for a project whose channels
-- quote output.
SELECT log_offset + greatest(length(bytes) - $2, 0), substring(bytes FROM greatest(length(bytes) - $2, 0) + 1)
  FROM qinglong.run_log_chunks
 WHERE attempt_id = $1
 ORDER BY log_offset DESC
 LIMIT 8

-- name: NotifyHistory
-- The states of a trigger's finished Runs admitted before this one, newest
-- first, cancelled ones passed over, through runs_trigger_listing_idx
-- (ids are time-ordered).
SELECT state FROM qinglong.runs
 WHERE trigger_id = $1 AND id < $2 AND state IN ('succeeded', 'failed', 'timed_out', 'lost')
 ORDER BY id DESC
 LIMIT $3

-- name: NotifyInsert
-- One notification, pending and due now; a second row for the same rule
-- and subject is dropped (one notification per rule and Run).
INSERT INTO qinglong.notification_outbox (id, project_id, run_id, rule_key, subject, event, channel, payload, state,
                                          attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, 'pending', 0, $9, $9, $9)
ON CONFLICT (rule_key, subject) DO NOTHING

-- name: NotifyClaim
-- Claims due pending rows in due order, skipping rows another replica is
-- claiming: one more attempt each, and not due again until the lease
-- passes (a replica that dies mid-delivery leaves the row to be sent
-- again, with the same id as its idempotency key). No row is taken past
-- its channel's share ($6), counting the rows of the channel this replica
-- has under way ($3, $4, $5) and those the claim takes before it, so a
-- receiver that does not answer holds only its share of the send slots.
--
-- The candidates are each channel's own first $6 due rows (no channel may
-- take more), found through notification_outbox_channel_due_idx: channels
-- walks the channels with pending rows, one descent each (PostgreSQL has
-- no skip scan of its own), and heads reads each one's due rows in due
-- order. A channel's backlog costs the claim $6 rows, and a healthy
-- channel's rows are candidates however many rows of a channel that does
-- not answer fell due before them: a look at the first rows due of all
-- channels together was filled by such a backlog and left the free slots
-- empty until it had died out. picked re-reads the candidates under FOR
-- UPDATE SKIP LOCKED, so a row another replica claimed meanwhile (no
-- longer due) or is claiming now is not taken twice; it looks them up by
-- primary key from an array, since the generic plan of a join (or IN)
-- against heads hashed them and scanned every due row of the outbox.
WITH RECURSIVE n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
busy AS (
    SELECT * FROM unnest($3::uuid[], $4::text[], $5::int[]) AS b(project_id, channel, n)
),
channels AS (
    (SELECT o.project_id, o.channel->>'name' AS channel
       FROM qinglong.notification_outbox o
      WHERE o.state = 'pending'
      ORDER BY o.project_id, o.channel->>'name'
      LIMIT 1)
    UNION ALL
    SELECT nx.project_id, nx.channel
      FROM channels c
     CROSS JOIN LATERAL (
           SELECT o.project_id, o.channel->>'name' AS channel
             FROM qinglong.notification_outbox o
            WHERE o.state = 'pending' AND (o.project_id, o.channel->>'name') > (c.project_id, c.channel)
            ORDER BY o.project_id, o.channel->>'name'
            LIMIT 1) nx
),
heads AS (
    SELECT h.id, h.next_attempt_at_ms,
           coalesce(b.n, 0) + row_number() OVER (PARTITION BY c.project_id, c.channel ORDER BY h.next_attempt_at_ms, h.id) AS nth
      FROM channels c
     CROSS JOIN LATERAL (
           SELECT o.id, o.next_attempt_at_ms
             FROM qinglong.notification_outbox o
            WHERE o.state = 'pending' AND o.project_id = c.project_id AND o.channel->>'name' = c.channel
              AND o.next_attempt_at_ms <= (SELECT ms FROM n)
            ORDER BY o.next_attempt_at_ms, o.id
            LIMIT $6) h
      LEFT JOIN busy b ON b.project_id = c.project_id AND b.channel = c.channel
),
picked AS (
    SELECT o.id FROM qinglong.notification_outbox o
     WHERE o.id = ANY (ARRAY(SELECT id FROM heads WHERE nth <= $6))
       AND o.state = 'pending' AND o.next_attempt_at_ms <= (SELECT ms FROM n)
     ORDER BY o.next_attempt_at_ms, o.id
     LIMIT $2
       FOR UPDATE SKIP LOCKED
)
UPDATE qinglong.notification_outbox o
   SET attempts = o.attempts + 1, next_attempt_at_ms = n.ms + $1, backing_off = false, updated_at_ms = n.ms
  FROM picked p, n
 WHERE o.id = p.id
RETURNING o.id, o.project_id, coalesce(o.run_id::text, ''), o.rule_key, o.event, o.channel::text, o.payload::text, o.state,
          o.attempts, o.next_attempt_at_ms, coalesce(o.last_error, ''), coalesce(o.last_error_reason, ''), o.created_at_ms, coalesce(o.delivered_at_ms, 0),
          coalesce(o.retried_at_ms, 0), o.attempts_before_retry, coalesce(o.retried_by, '')

-- name: NotifyDelivered
-- A delivery succeeded: the row is delivered for good, and the receiver is
-- back, so its channel's rows waiting out a backoff are due at once, each
-- from its creation, so they go before any newer row of the channel and
-- in creation order. Rows under way (claimed, backing_off false) are left
-- to their claim: made due, two replicas could send one at once; a row
-- another replica claims meanwhile is re-checked once its lock is free
-- and left alone. waiting reads the channel's rows whose next attempt lies
-- ahead, through notification_outbox_channel_due_idx: the rows it changes
-- and those under way, never the channel's due backlog.
WITH n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
delivered AS (
    UPDATE qinglong.notification_outbox o
       SET state = 'delivered', delivered_at_ms = n.ms, last_error = NULL, last_error_reason = NULL, updated_at_ms = n.ms
      FROM n
     WHERE o.id = $1 AND o.state = 'pending'
    RETURNING o.project_id, o.channel->>'name' AS channel
)
UPDATE qinglong.notification_outbox o
   SET next_attempt_at_ms = o.created_at_ms, backing_off = false, updated_at_ms = n.ms
  FROM delivered d, n
 WHERE o.state = 'pending' AND o.backing_off
   AND o.project_id = d.project_id AND o.channel->>'name' = d.channel
   AND o.next_attempt_at_ms > n.ms

-- name: NotifyFailed
-- A delivery failed: due again after the backoff ($2 ms), waiting in it
-- until then, or dead, with its text and its reason (NULL: none known).
-- One due again at once ($2 = 0: a send a stop cut short) is due from its
-- creation, so it takes its place in its channel's creation order. Fenced
-- by the attempt count of the claim, so a late report of an older claim
-- changes nothing.
UPDATE qinglong.notification_outbox
   SET state = $1, next_attempt_at_ms = CASE WHEN $2::bigint > 0 THEN {{now_ms}} + $2 ELSE created_at_ms END,
       backing_off = ($1 = 'pending' AND $2::bigint > 0), last_error = $3, last_error_reason = $6, updated_at_ms = {{now_ms}}
 WHERE id = $4 AND state = 'pending' AND attempts = $5

-- name: NotifyList
-- The columns of an outbox listing for people, ending at FROM: the listing
-- composes the filters a request gives after it (notify.go), so each one is
-- a range of its index in the listing's order
-- (notification_outbox_state_listing_idx or
-- notification_outbox_project_listing_idx; the primary key for the cursor
-- alone) rather than a catch-all "$n = '' OR …" plan that reads the whole
-- outbox.
SELECT id, project_id, coalesce(run_id::text, ''), rule_key, event, channel::text, payload::text, state, attempts,
       next_attempt_at_ms, coalesce(last_error, ''), coalesce(last_error_reason, ''), created_at_ms, coalesce(delivered_at_ms, 0),
       coalesce(retried_at_ms, 0), attempts_before_retry, coalesce(retried_by, '')
  FROM qinglong.notification_outbox

-- name: NotifyRetry
-- A dead row is pending again and due at once, its attempts kept: the
-- retry by hand is recorded (when, who asked, and the attempts it had
-- then, from which the limit of attempts counts again). It is due from its
-- creation, so it takes its place in its channel's creation order.
UPDATE qinglong.notification_outbox
   SET state = 'pending', attempts_before_retry = attempts, retried_at_ms = {{now_ms}}, retried_by = $2, next_attempt_at_ms = created_at_ms,
       backing_off = false, updated_at_ms = {{now_ms}}
 WHERE id = $1 AND state = 'dead'
RETURNING id, project_id, coalesce(run_id::text, ''), rule_key, event, channel::text, payload::text, state, attempts,
          next_attempt_at_ms, coalesce(last_error, ''), coalesce(last_error_reason, ''), created_at_ms, coalesce(delivered_at_ms, 0),
          coalesce(retried_at_ms, 0), attempts_before_retry, coalesce(retried_by, '')

-- name: NotifyProject
-- The name of the project of one outbox row, which a retry by a token or
-- console user bound to projects must be one of.
SELECT p.name FROM qinglong.notification_outbox o JOIN qinglong.projects p ON p.id = o.project_id WHERE o.id = $1

-- name: NotifyState
-- The state of one outbox row, to say why a retry changed nothing.
SELECT state FROM qinglong.notification_outbox WHERE id = $1
