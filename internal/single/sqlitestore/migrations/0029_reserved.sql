-- Holds the stream's place for the migration numbered 0029 on another
-- branch; it changes nothing.
SELECT 1;
