-- Free pages and the page size: what an incremental vacuum can give back.
SELECT (SELECT freelist_count FROM pragma_freelist_count), (SELECT page_size FROM pragma_page_size)
