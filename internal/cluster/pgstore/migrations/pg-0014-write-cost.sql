-- What each occurrence costs the database to write, without changing what
-- is written or what the schema accepts (docs/architecture.md, "What an
-- admission writes").

-- Room on each page of trigger_schedules for the next version of its rows.
-- Every occurrence updates its schedule row twice (the claim, then the
-- admission), and neither update can be HOT: each changes a column of a
-- claim index (claim_owner, claim_expires_at_ms, the cursor). A new version
-- that does not fit on its row's page goes to another one, which writes a
-- second page and an extra lock record (the old version is marked before
-- its page is left); on packed pages that was nearly every update, 3.9 row
-- lock records per occurrence where the claim and the page lock take 2.
-- Pages filled to a third leave room for both new versions of each row
-- (the claim's and the admission's), so a row keeps its page even when a
-- transaction elsewhere on the server keeps the versions before them from
-- being pruned in between (measured: 2.00 lock records per occurrence; at
-- half, 2.1, where that pruning was missing).
-- Existing rows stay where they are: a row moves to a page filled
-- only this far the next time its page has no room.
ALTER TABLE qinglong.trigger_schedules SET (fillfactor = 33);

-- The same CHECKs without a bounded repetition: PostgreSQL's regular
-- expressions expand [0-9a-f]{64} or [...]{0,127} into one state per
-- repetition: one such match cost 50–80 µs of CPU on a loaded machine,
-- against 4–15 µs for the unbounded class plus a length. Each check
-- below accepts exactly the strings its predecessor accepted (the
-- predecessor is quoted; TestCheaperChecksAcceptExactlyWhatTheirRegexesDid):
-- the class and the anchors are unchanged and the length takes the
-- repetition's bound. Only the checks a row pays on every write of the
-- admission or of an attempt's lease are replaced; the revisions', written
-- once per publish, keep theirs.

-- '^qltd:v1:[0-9]+:sha256:[0-9a-f]{64}$', on every insert and update of a
-- Run: the digest is the fifth ':'-separated part, the only one after
-- "sha256".
ALTER TABLE qinglong.runs
    DROP CONSTRAINT runs_execution_revision_id_check,
    ADD CONSTRAINT runs_execution_revision_id_check
        CHECK (execution_revision_id ~ '^qltd:v1:[0-9]+:sha256:[0-9a-f]+$' AND length(split_part(execution_revision_id, ':', 5)) = 64);

-- '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$', on every claim.
ALTER TABLE qinglong.trigger_schedules
    DROP CONSTRAINT trigger_schedules_claim_owner_check,
    ADD CONSTRAINT trigger_schedules_claim_owner_check
        CHECK (claim_owner ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]*$' AND length(claim_owner) <= 128);

-- '^[0-9a-f]{64}$' both, on every update of a leased attempt (renewals,
-- callbacks, results).
ALTER TABLE qinglong.attempts
    DROP CONSTRAINT attempts_lease_token_sha256_check,
    ADD CONSTRAINT attempts_lease_token_sha256_check
        CHECK (lease_token_sha256 ~ '^[0-9a-f]+$' AND length(lease_token_sha256) = 64),
    DROP CONSTRAINT attempts_callback_token_sha256_check,
    ADD CONSTRAINT attempts_callback_token_sha256_check
        CHECK (callback_token_sha256 ~ '^[0-9a-f]+$' AND length(callback_token_sha256) = 64);
