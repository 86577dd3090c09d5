-- Holds the stream's place for the migration numbered 0033 on another
-- branch; it changes nothing.
SELECT 1;
