-- Opens one decision of a page inside the page's transaction: whatever the
-- decision writes before it is refused or fails is undone to here, so a
-- row that races or fails writes nothing and never aborts the others.
SAVEPOINT schedule_row
