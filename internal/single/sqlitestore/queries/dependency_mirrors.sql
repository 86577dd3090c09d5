-- Lists the mirrors set (the Dependencies page's settings), by kind.
SELECT kind, registry, proxy, at_ms, actor FROM dependency_mirrors ORDER BY kind
