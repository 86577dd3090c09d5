package replica

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// The server a reconnection reached is compared with the one before: an
// older timeline of the same cluster is an old primary back after a
// failover (split brain), which outranks its other address; another
// address or cluster is a change; the same server, or a comparison the
// role could not read, is none.
func TestAReconnectionToAnOlderTimelineOrAnotherServerIsWarnedAndTheSameServerIsNot(t *testing.T) {
	t.Parallel()
	primary := pgstore.Server{Address: "10.0.0.1:5432", ServerAddress: "10.0.0.1:5432", SystemID: "7001", Timeline: 2}
	for _, c := range []struct {
		name   string
		before *pgstore.Server
		now    pgstore.Server
		code   string
		words  string
	}{
		{"first activation", nil, primary, "", ""},
		{"same server", &primary, primary, "", ""},
		{"old primary back", &primary, pgstore.Server{Address: "10.0.0.2:5432", ServerAddress: "10.0.0.2:5432", SystemID: "7001", Timeline: 1},
			CodeDatabaseTimelineBehind, "timeline 1, older than timeline 2"},
		{"promoted standby", &primary, pgstore.Server{Address: "10.0.0.2:5432", ServerAddress: "10.0.0.2:5432", SystemID: "7001", Timeline: 3},
			CodeDatabaseServerChanged, "10.0.0.2:5432 (before 10.0.0.1:5432)"},
		{"another cluster, same address", &primary, pgstore.Server{Address: "10.0.0.1:5432", ServerAddress: "10.0.0.1:5432", SystemID: "9009", Timeline: 1},
			CodeDatabaseServerChanged, "system identifier 9009, before 7001"},
		{"behind a proxy", &primary, pgstore.Server{Address: "10.0.0.1:5432", ServerAddress: "10.0.0.3:5432", SystemID: "7001", Timeline: 2},
			CodeDatabaseServerChanged, "server 10.0.0.3:5432"},
		{"timeline unreadable", &primary, pgstore.Server{Address: "10.0.0.1:5432", ServerAddress: "10.0.0.1:5432"}, "", ""},
	} {
		code, msg := serverChange(c.before, c.now)
		if code != c.code || !strings.Contains(msg, c.words) {
			t.Errorf("%s: %q %q, want code %q saying %q", c.name, code, msg, c.code, c.words)
		}
	}
}
