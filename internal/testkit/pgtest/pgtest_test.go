package pgtest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// leakEnv makes the test binary leave a goroutine blocked forever before
// its tests run, so a child process can show what Main does with it.
const leakEnv = "QL_PGTEST_TEST_LEAK"

func TestMain(m *testing.M) {
	if mode := os.Getenv(pgtest.OrphanHelperEnv); mode != "" {
		pgtest.OrphanHelperMain(mode)
	}
	if os.Getenv(leakEnv) != "" {
		leakOne()
	}
	pgtest.Main(m)
}

func leakOne() {
	never := make(chan struct{})
	go func() { <-never }()
}

// Main ends with the goroutine leak check: a binary whose tests pass still
// fails when a goroutine outlives them.
func TestMainFailsABinaryThatLeavesAGoroutineRunning(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), leakEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "pgtest_test.leakOne") {
		t.Fatalf("with a leaked goroutine the binary ended with %v, want exit status 1 naming leakOne\n%s", err, out)
	}
}

// startExtra starts an independent server with the shared server's binaries
// (so it skips or fails exactly like Server) and stops it on cleanup.
func startExtra(t *testing.T, opts pgtest.Options) *pgtest.Srv {
	t.Helper()
	opts.BinDir = pgtest.Server(t).BinDir()
	s, err := pgtest.StartServer(t.Context(), opts)
	if err != nil {
		t.Fatalf("StartServer: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return s
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func TestServerVersionAndSettings(t *testing.T) {
	t.Parallel()
	srv := pgtest.Server(t)
	conn := connect(t, srv.SuperuserURL("postgres"))

	var version string
	if err := conn.QueryRow(t.Context(), "SELECT version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "PostgreSQL "+srv.Version()) {
		t.Errorf("version() = %q, want prefix PostgreSQL %s", version, srv.Version())
	}
	if major := fmt.Sprint(srv.VersionNum() / 10000); !strings.HasPrefix(srv.Version(), major+".") {
		t.Errorf("Version %q disagrees with VersionNum %d", srv.Version(), srv.VersionNum())
	}
	t.Logf("server: %s", version)

	for name, want := range map[string]string{
		"fsync":            "on",
		"max_connections":  "200",
		"wal_level":        "replica",
		"max_wal_senders":  "10",
		"listen_addresses": "127.0.0.1",
		"log_min_messages": "warning",
		"port":             fmt.Sprint(srv.Port()),
	} {
		var got string
		if err := conn.QueryRow(t.Context(), "SELECT current_setting($1)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	// The unix socket works too, and is where the harness put it.
	sock := connect(t, fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", srv.SocketDir(), srv.Port()))
	var viaSocket bool
	if err := sock.QueryRow(t.Context(), "SELECT inet_client_addr() IS NULL").Scan(&viaSocket); err != nil {
		t.Fatal(err)
	}
	if !viaSocket {
		t.Error("connection through SocketDir reports a TCP client address")
	}
}

func TestDigestRoundTrip(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewDatabase(t).Pool(t)
	ctx := t.Context()

	if _, err := pool.Exec(ctx, `CREATE TABLE blobs (id int PRIMARY KEY, payload bytea NOT NULL, digest bytea NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	// Every byte value, so an encoding slip in either direction shows.
	payload := make([]byte, 4096)
	for i := range payload {
		payload[i] = byte(i)
	}
	sum := sha256.Sum256(payload)
	if _, err := pool.Exec(ctx, `INSERT INTO blobs VALUES (1, $1, $2)`, payload, sum[:]); err != nil {
		t.Fatal(err)
	}

	var gotPayload, gotDigest, serverDigest []byte
	err := pool.QueryRow(ctx, `SELECT payload, digest, sha256(payload) FROM blobs WHERE id = 1`).
		Scan(&gotPayload, &gotDigest, &serverDigest)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotPayload, payload) {
		t.Error("payload changed in the round trip")
	}
	if !bytes.Equal(gotDigest, sum[:]) {
		t.Errorf("stored digest %x, want %x", gotDigest, sum)
	}
	if !bytes.Equal(serverDigest, sum[:]) {
		t.Errorf("PostgreSQL sha256 = %x, Go sha256 = %x", serverDigest, sum)
	}
}

func TestNewDatabaseIsolation(t *testing.T) {
	t.Parallel()
	a, b := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
	if a.Name == b.Name {
		t.Fatalf("both databases are named %q", a.Name)
	}
	ctx := t.Context()
	if _, err := a.Pool(t).Exec(ctx, `CREATE TABLE only_in_a (x int)`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		db   *pgtest.Database
		want bool
	}{{a, true}, {b, false}} {
		var exists bool
		if err := tc.db.Pool(t).QueryRow(ctx, `SELECT to_regclass('public.only_in_a') IS NOT NULL`).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if exists != tc.want {
			t.Errorf("%s: table only_in_a visible = %v, want %v", tc.db.Name, exists, tc.want)
		}
	}
}

func TestNewDatabaseDroppedOnCleanup(t *testing.T) {
	t.Parallel()
	var name string
	t.Run("owner", func(t *testing.T) {
		db := pgtest.NewDatabase(t)
		name = db.Name
		// A session still open at cleanup must not stop the drop.
		connect(t, db.URL)
	})
	conn := connect(t, pgtest.Server(t).SuperuserURL("postgres"))
	var n int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s still exists after its test's cleanup", name)
	}
}

func TestStopReleasesPortAndProcess(t *testing.T) {
	t.Parallel()
	s := startExtra(t, pgtest.Options{})
	port, pid, dataDir := s.Port(), s.PID(), s.DataDir()

	// An open session must not hold up the fast shutdown.
	conn := connect(t, s.SuperuserURL("postgres"))
	if _, err := conn.Exec(t.Context(), "SELECT 1"); err != nil {
		t.Fatal(err)
	}

	if err := s.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	assertGone(t, port, pid)
	if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data dir %s still there after Stop (stat: %v)", dataDir, err)
	}
	if err := s.Stop(t.Context()); err != nil {
		t.Errorf("second Stop = %v, want nil", err)
	}
}

func TestStopPastDeadlineKills(t *testing.T) {
	t.Parallel()
	s := startExtra(t, pgtest.Options{})
	port, pid := s.Port(), s.PID()

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Stop(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stop with an expired context = %v, want context.Canceled", err)
	}
	assertGone(t, port, pid)
}

func TestRestartOnCallerDataDir(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(pgtest.TempDir(t), "data")

	first := startExtra(t, pgtest.Options{DataDir: dataDir, ExtraConf: map[string]string{"work_mem": "8MB"}})
	conn := connect(t, first.SuperuserURL("postgres"))
	var workMem string
	if err := conn.QueryRow(t.Context(), "SHOW work_mem").Scan(&workMem); err != nil {
		t.Fatal(err)
	}
	if workMem != "8MB" {
		t.Errorf("work_mem = %q, want ExtraConf's 8MB", workMem)
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('survives')"); err != nil {
		t.Fatal(err)
	}
	if err := first.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}

	second := startExtra(t, pgtest.Options{DataDir: dataDir, SkipInitdb: true})
	var v string
	if err := connect(t, second.SuperuserURL("postgres")).QueryRow(t.Context(), "SELECT v FROM kept").Scan(&v); err != nil {
		t.Fatalf("reading the first server's table: %v", err)
	}
	if v != "survives" {
		t.Errorf("kept.v = %q", v)
	}
}

func TestStartFailureReportsServerLog(t *testing.T) {
	t.Parallel()
	_, err := pgtest.StartServer(t.Context(), pgtest.Options{
		BinDir:    pgtest.Server(t).BinDir(),
		ExtraConf: map[string]string{"shared_buffers": "plenty"},
	})
	if err == nil {
		t.Fatal("StartServer accepted shared_buffers = plenty")
	}
	t.Logf("expected start error:\n%v", err)
	// The reason is only in the server's log, so it must be in the error.
	if !strings.Contains(err.Error(), `invalid value for parameter "shared_buffers"`) {
		t.Errorf("error lacks the server log's reason:\n%v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		opts pgtest.Options
		want string // substring of the error; empty means valid
	}{
		"zero":                 {pgtest.Options{}, ""},
		"extra setting":        {pgtest.Options{ExtraConf: map[string]string{"work_mem": "8MB"}}, ""},
		"skip without dir":     {pgtest.Options{SkipInitdb: true}, "Options.SkipInitdb"},
		"harness-owned port":   {pgtest.Options{ExtraConf: map[string]string{"Port": "5432"}}, `ExtraConf["Port"]`},
		"bad name":             {pgtest.Options{ExtraConf: map[string]string{"a = b": "1"}}, `ExtraConf["a = b"]`},
		"multi-line value":     {pgtest.Options{ExtraConf: map[string]string{"work_mem": "1\nfsync=off"}}, `ExtraConf["work_mem"]`},
		"quoted value is fine": {pgtest.Options{ExtraConf: map[string]string{"application_name": `it's a \ test`}}, ""},
	} {
		err := tc.opts.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: Validate() = %v, want an error mentioning %s", name, err, tc.want)
		}
	}
}

func TestExtraConfQuoting(t *testing.T) {
	t.Parallel()
	const name = `it's a \ test`
	s := startExtra(t, pgtest.Options{ExtraConf: map[string]string{"application_name": name}})
	var got string
	if err := connect(t, s.SuperuserURL("postgres")).QueryRow(t.Context(), "SELECT current_setting('application_name')").Scan(&got); err != nil {
		t.Fatal(err)
	}
	// pgx sets application_name for its own session only when asked to, so
	// this is the server default from the config file.
	if got != name {
		t.Errorf("application_name = %q, want %q", got, name)
	}
}

// assertGone checks that nothing listens on port and that pid no longer
// exists.
func assertGone(t *testing.T, port, pid int) {
	t.Helper()
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 2*time.Second); err == nil {
		_ = c.Close()
		t.Errorf("port %d still accepts connections after Stop", port)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("postmaster pid %d: kill(0) = %v, want ESRCH", pid, err)
	}
}
