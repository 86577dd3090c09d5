-- Project deletion: project ?1's notifications, sent or not (its Runs are
-- gone, and nothing of it will be sent any more).
DELETE FROM notification_outbox WHERE project_id = ?1
