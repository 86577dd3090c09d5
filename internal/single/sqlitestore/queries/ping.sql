-- Liveness of the file: a read answers.
SELECT 1
