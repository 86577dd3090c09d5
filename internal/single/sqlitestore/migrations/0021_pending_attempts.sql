-- The dispatcher's queue holds only the attempts it could start now:
-- claimed and not waiting out a retry backoff (a retried Run's next
-- attempt is claimed with available_at_ms set until its requeue clears
-- it). attempts_claimed also held the waiting ones, so every dispatcher
-- round read each attempt waiting to retry (and its Run) before reaching
-- the due ones, a cost that grew with the Runs waiting.
DROP INDEX attempts_claimed;
CREATE INDEX attempts_pending ON attempts (id) WHERE state = 'claimed' AND available_at_ms IS NULL;
