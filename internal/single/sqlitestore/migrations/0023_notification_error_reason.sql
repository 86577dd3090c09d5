-- A failed notification keeps why it failed as a stable code beside its
-- English text (notify.Reasons), so a page in another language says it in
-- its own words. NULL for a row never failed or delivered, and for one
-- whose last failure an older build recorded: those show the text alone.
ALTER TABLE notification_outbox ADD COLUMN last_error_reason TEXT;
