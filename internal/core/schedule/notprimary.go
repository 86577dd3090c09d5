package schedule

import "github.com/qinglong/qinglong/internal/core/qlerror"

// RefusalNotPrimary is a write the database refused because it takes no
// writes: a standby in recovery, or a server set read-only. Its code is
// Unavailable (another server may take it), but unlike a lost connection
// its outcome is known: the statement was refused before anything was
// written, so a caller never says the write may have been done.
const RefusalNotPrimary qlerror.Reason = "not_primary"
