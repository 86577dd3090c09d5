-- The linked SQLite library version; readiness requires a supported one.
SELECT sqlite_version()
