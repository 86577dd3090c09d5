-- pg-0033: a worker's credential is replaced without a new name
-- (sql/workers_admin.sql, WorkerRotate). The credential a rotation
-- replaced is kept, as its digest, until a time in database time, so the
-- running worker can be restarted with the new one before the old one is
-- refused; one replaced credential at a time. Authentication
-- (WorkerAuthenticate) finds a digest in either column, each through its
-- own unique index, so a digest names one worker whichever column holds it.
ALTER TABLE qinglong.workers
    ADD COLUMN previous_credential_sha256 text CHECK (previous_credential_sha256 ~ '^[0-9a-f]{64}$'),
    ADD COLUMN previous_credential_until_ms bigint,
    ADD CONSTRAINT workers_previous_credential_shape
        CHECK ((previous_credential_sha256 IS NULL) = (previous_credential_until_ms IS NULL));

CREATE UNIQUE INDEX workers_previous_credential_idx ON qinglong.workers (previous_credential_sha256)
    WHERE previous_credential_sha256 IS NOT NULL;
