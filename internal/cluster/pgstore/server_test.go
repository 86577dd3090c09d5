package pgstore

import (
	"slices"
	"strings"
	"testing"
)

// A replica names the server its connection reached in terms that tell a
// failover apart: the address it dialled, the server's own address, the
// cluster's system identifier and the timeline, read as the runtime role,
// which may read the control file's functions on a default install.
func TestServerNamesTheAddressSystemIdentifierAndTimelineTheRuntimeRoleReached(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	got, err := s.runtime.Server(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var systemID, serverAddr string
	var timeline int64
	if err := s.super.QueryRow(t.Context(), `SELECT (SELECT system_identifier::text FROM pg_control_system()), (SELECT timeline_id::bigint FROM pg_control_checkpoint()),
		host(inet_server_addr()) || ':' || inet_server_port()`).Scan(&systemID, &timeline, &serverAddr); err != nil {
		t.Fatal(err)
	}
	if got.SystemID != systemID || got.Timeline != timeline || got.Timeline < 1 {
		t.Errorf("system identifier %q, timeline %d; want %q, %d", got.SystemID, got.Timeline, systemID, timeline)
	}
	if got.ServerAddress != serverAddr || got.Address != serverAddr {
		t.Errorf("address %q, server address %q; want both %q (no proxy between)", got.Address, got.ServerAddress, serverAddr)
	}
	if got.Standby || len(got.Unreadable) != 0 {
		t.Errorf("standby %v, unreadable %v; want a primary read in full", got.Standby, got.Unreadable)
	}
}

// An operator may revoke the control file's functions from PUBLIC: the
// server is still named by its address, and what the role could not read
// is said, not an error that would stop the replica.
func TestServerLeavesOutWhatTheRuntimeRoleMayNotReadAndSaysSo(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	// pg_proc is per database: this changes the test's own database only.
	s.exec(t, `REVOKE EXECUTE ON FUNCTION pg_catalog.pg_control_system(), pg_catalog.pg_control_checkpoint() FROM PUBLIC`)
	got, err := s.runtime.Server(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got.SystemID != "" || got.Timeline != 0 {
		t.Errorf("system identifier %q, timeline %d read without the privilege", got.SystemID, got.Timeline)
	}
	if !slices.Equal(got.Unreadable, []string{"pg_control_system()", "pg_control_checkpoint()"}) {
		t.Errorf("unreadable %v, want both control-file functions named", got.Unreadable)
	}
	if !strings.HasPrefix(got.ServerAddress, "127.0.0.1:") {
		t.Errorf("server address %q, want the server's own address and port", got.ServerAddress)
	}
}
