package schedule

import "github.com/qinglong/qinglong/internal/core/qlerror"

// RefusalNotPrimary is a write the database refused because it takes no
// writes: a standby in recovery, or a server set read-only. Its code is
// Unavailable (another server may take it), but unlike a lost connection
// its outcome is known: the statement was refused before anything was
// written, so a caller never says the write may have been done.
const RefusalNotPrimary qlerror.Reason = "not_primary"

// RefusalFeatureNotSupported is a statement the database refused because
// it does not support something the statement asks for (SQLSTATE 0A000) on
// a server that is not in recovery: no standby, so connecting elsewhere
// does not help. Nothing was written.
const RefusalFeatureNotSupported qlerror.Reason = "feature_not_supported"
