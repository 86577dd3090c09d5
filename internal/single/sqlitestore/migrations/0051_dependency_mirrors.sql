-- Where the Dependencies page's installers fetch (deps.Store): per kind
-- that takes one, the registry (npm) or index (pip) URL and the HTTP(S)
-- proxy, '' for the installer's default, checked before they are kept
-- (http or https, no credentials), and who set them when.
CREATE TABLE dependency_mirrors (
  kind      TEXT NOT NULL PRIMARY KEY CHECK (kind IN ('node', 'python')),
  registry  TEXT NOT NULL CHECK (length(registry) <= 512),
  proxy     TEXT NOT NULL CHECK (length(proxy) <= 512),
  at_ms     INTEGER NOT NULL,
  actor     TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128)
) WITHOUT ROWID;
