-- The sign-ins waiting for their second step (account.PendingSteps): a
-- right password of a user with two-step on leaves a row, keyed by the
-- SHA-256 of a random ticket the browser's form holds (never the ticket),
-- naming the user, the stamp of the password checked and the SHA-256 of
-- the browser's sign-in cookie, ending five minutes on by the database's
-- clock. The code's answer deletes it, so a ticket signs in once, on
-- whichever replica the code is sent to. Ended rows are deleted when read
-- or used and at each new one, through the expiry index; deleting the
-- account deletes its rows.
CREATE TABLE qinglong.console_two_step_pending (
    digest         bytea  NOT NULL PRIMARY KEY CHECK (length(digest) = 32),
    user_id        uuid   NOT NULL REFERENCES qinglong.console_users (id) ON DELETE CASCADE,
    password_stamp text   NOT NULL,
    browser        bytea  NOT NULL CHECK (length(browser) = 32),
    expires_at_ms  bigint NOT NULL
);

CREATE INDEX console_two_step_pending_expiry ON qinglong.console_two_step_pending (expires_at_ms);
CREATE INDEX console_two_step_pending_user ON qinglong.console_two_step_pending (user_id);
