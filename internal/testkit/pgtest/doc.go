// Package pgtest gives tests a private PostgreSQL server: its own initdb'd
// cluster in a temp dir, listening on a free 127.0.0.1 port and on a unix
// socket inside that dir, with trust authentication (nothing else can reach
// it) and fsync on (durability behaviour is part of what we test).
//
// Usage:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestX(t *testing.T) {
//		t.Parallel()
//		db := pgtest.NewDatabase(t) // fresh database, dropped on cleanup
//		pool := db.Pool(t)
//		...
//	}
//
// # Invariants
//
//   - At most one shared server per test binary. Server starts it on first
//     use; tests that never ask for it cost nothing. Each test gets isolation
//     from its own database (NewDatabase), not from its own server.
//   - Every server is a direct child of the test process. StartServer runs
//     postgres itself rather than through "pg_ctl start", because pg_ctl
//     detaches the postmaster and nothing would then tie its life to ours.
//     initdb still creates the cluster.
//   - No server outlives the process that started it (see Lifecycle).
//   - A temp dir is "orphaned" exactly when nobody holds the flock on its
//     pgtest.lock: the owning process takes it before the dir becomes visible
//     under its final name and the kernel drops it when that process dies, so
//     the sweep never removes a live server's files, even across PID
//     namespaces sharing /tmp.
//
// # Lifecycle
//
//	first Server(t) ─► sweep orphaned temp dirs ─► initdb ─► postgres (our child) ─► ready
//
//	m.Run returns (pass, fail, or a panic unwinding through it)
//	  └─► Main stops every live server: SIGINT (fast shutdown), SIGKILL to the
//	      server's process group if the deadline passes; removes the temp dirs;
//	      exits with m's code
//
//	the process dies without returning (test timeout, SIGKILL, panic in a test goroutine)
//	  └─► the kernel sends the postmaster SIGQUIT (parent-death signal, immediate
//	      shutdown); the next pgtest process's sweep removes the orphaned temp dir
//
// The parent-death signal is Linux-only; elsewhere an abruptly killed test
// binary leaves its server running until the sweep deletes its data
// directory, which PostgreSQL notices within a minute and shuts down.
//
// While a server runs, one goroutine per server waits for its postmaster;
// Main checks for leaked goroutines only after stopping every server, so
// those are never reported.
//
// # Running as root
//
// initdb and postgres refuse to run as root. When os.Geteuid() == 0 the
// harness runs them as the "postgres" account (SysProcAttr.Credential, so the
// parent-death signal still applies; runuser/su would sit in between), chowns
// the directories it creates to that user, and checks that every parent
// directory is searchable by it (TMPDIR under /root is not).
//
// # Binaries
//
// $QL_TEST_PG_BIN (a bin directory, e.g. PostgreSQL 18 elsewhere on disk),
// else initdb found on PATH (symlinks resolved, so /usr/local/bin links to a
// Debian install work), else the highest /usr/lib/postgresql/*/bin.
//
// # Missing PostgreSQL
//
// Server skips the test with install instructions, unless $CI is non-empty:
// then the test fails, so CI can never pass by skipping the database suite.
package pgtest
