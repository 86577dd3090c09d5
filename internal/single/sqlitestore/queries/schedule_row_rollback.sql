-- Undoes everything one refused or failed decision of a page wrote; the
-- decisions before it in the page stay.
ROLLBACK TO schedule_row
