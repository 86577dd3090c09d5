-- Retention: delivered and dead notifications created before ?1, at most
-- ?2, through notification_outbox_state (one range per state). A pending
-- row is still to be sent and never matches; a dead row that `ql
-- notifications retry` made pending again is no longer dead when this
-- runs under the write lock.
DELETE FROM notification_outbox
WHERE id IN (
  SELECT id FROM notification_outbox
  WHERE state IN ('delivered', 'dead') AND created_at_ms < ?1
  LIMIT ?2
)
