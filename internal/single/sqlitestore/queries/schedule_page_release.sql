-- Closes a page's set-based write; it commits with the page's
-- transaction, never on its own.
RELEASE schedule_page
