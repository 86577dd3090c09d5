package pgstore

import (
	"fmt"
	"strings"
	"testing"
)

// A server with no connection left to give is told as what it is, with
// what to do: raise max_connections or run fewer replicas, each opening
// up to ReplicaConns; never "check the host and port", and with the
// server's own sentence as a replica's cause. It stays an outage a retry
// may pass (the slots free up).
func TestNoConnectionLeftSaysToRaiseMaxConnectionsAndHowManyAReplicaOpens(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The role's own limit answers as a full server does (53300), and
	// leaves the shared server's slots to the other tests.
	e.exec(t, `ALTER ROLE "`+e.roles.Runtime+`" CONNECTION LIMIT 0`)
	err := CheckRuntime(t.Context(), e.url(RoleRuntime), e.roles)
	msg := fmt.Sprint(err)
	for _, want := range []string{"raise max_connections", "run fewer replicas", fmt.Sprintf("up to %d connections (%d with retention)", ReplicaConns, ReplicaConns+maintenanceConns)} {
		if !strings.Contains(msg, want) {
			t.Errorf("ql db check: %q, want it to say %q", msg, want)
		}
	}
	if strings.Contains(msg, checkServerRuns) {
		t.Errorf("ql db check: %q says to check the host and port of a server that answered", msg)
	}
	_, err = OpenRuntime(t.Context(), e.url(RoleRuntime), RuntimeConfig{Owner: "replica-full", RolePrefix: e.prefix()})
	if cause := ConnectCause(err); !strings.Contains(cause, "too many connections for role") || !strings.Contains(cause, "53300") || !Transient(err) {
		t.Errorf("a replica's pool: cause %q (transient %v), want the server's sentence with its SQLSTATE, retried", cause, Transient(err))
	}
}
