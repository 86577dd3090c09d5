-- Closes one decision of a page; its writes commit with the page's
-- transaction, never on their own.
RELEASE schedule_row
