-- Opens the set-based write of a page inside the page's transaction: if
-- any of its statements fails, everything it wrote is undone to here and
-- the page is committed decision by decision instead.
SAVEPOINT schedule_page
