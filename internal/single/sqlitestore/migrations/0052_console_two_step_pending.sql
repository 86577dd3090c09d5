-- The sign-ins waiting for their second step (account.PendingSteps): a
-- right password of a user with two-step on leaves a row, keyed by the
-- SHA-256 of a random ticket the browser's form holds (never the ticket),
-- naming the user, the stamp of the password checked and the SHA-256 of
-- the browser's sign-in cookie, ending five minutes on. The code's answer
-- deletes it, so a ticket signs in once, on this server whether or not it
-- restarted meanwhile. Ended rows are deleted when read or used and at
-- each new one, through the expiry index; deleting the account deletes
-- its rows.
CREATE TABLE console_two_step_pending (
    digest         BLOB    NOT NULL PRIMARY KEY CHECK (length(digest) = 32),
    user_id        TEXT    NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
    password_stamp TEXT    NOT NULL,
    browser        BLOB    NOT NULL CHECK (length(browser) = 32),
    expires_at_ms  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX console_two_step_pending_expiry ON console_two_step_pending (expires_at_ms);
CREATE INDEX console_two_step_pending_user ON console_two_step_pending (user_id);
