-- The Run holding an idempotency key, if any: a run-now request repeated
-- with the same request id finds the Run the first one made.
SELECT id FROM runs WHERE idempotency_key = ?
