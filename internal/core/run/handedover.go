package run

import (
	"fmt"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalHandedOver is the refusal of what would run the triggers of a
// database handed over to another (`export --with-state`), which runs them
// from then on: a server started on it, or a Run queued on it by hand.
const RefusalHandedOver qlerror.Reason = "database_handed_over"

// HandedOverNote is the one wording of every note about a data directory
// whose database was handed over (`export --with-state`): a plain `serve`
// there is refused (database_handed_over), so a note naming it would send
// the reader to a refusal. It says what waits (waits, a clause read before
// "after": "its 1 queued Run stays queued here, and runs only") until
// takeBack, the command line of the take-back, takes the database back.
func HandedOverNote(dataDir, waits, takeBack string) string {
	return fmt.Sprintf("the database of this data directory (%s) was handed over (`export --with-state`), so no server runs here: "+
		"%s after `%s` takes it back (the triggers run where the state was applied; take back only once no server of that target runs)",
		dataDir, waits, takeBack)
}
