-- Undoes a page's set-based write that failed part-way.
ROLLBACK TO schedule_page
