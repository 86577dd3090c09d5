package pgtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

const (
	// shutdownTimeout bounds Main's stop of each server; a fast shutdown of a
	// test cluster takes well under a second.
	shutdownTimeout = time.Minute
	// adminTimeout bounds CREATE/DROP DATABASE.
	adminTimeout = time.Minute
	// poolMaxConns caps Database.Pool: up to -parallel tests (GOMAXPROCS
	// unless set; at least 4 in pgstore) share one server with
	// max_connections 200, and pgxpool's default,
	// max(4, NumCPU), would let a large machine exhaust it. A test that needs more builds
	// its own pool from Database.URL.
	poolMaxConns = 10
)

var (
	mainRunning atomic.Bool

	sharedOnce sync.Once
	shared     *Srv
	sharedErr  error

	dbSeq atomic.Uint64

	// live holds every server started and not yet stopped, so Main can stop
	// the ones tests forgot.
	liveMu sync.Mutex
	live   = map[*Srv]struct{}{}
)

func track(s *Srv) {
	liveMu.Lock()
	defer liveMu.Unlock()
	live[s] = struct{}{}
}

func untrack(s *Srv) {
	liveMu.Lock()
	defer liveMu.Unlock()
	delete(live, s)
}

// Main wraps testing.M: it starts nothing eagerly, runs m.Run, stops every
// server this process started (the shared one, plus any StartServer server a
// test failed to stop, which makes the run fail), removes their temp dirs,
// and exits with m's code; when the tests passed, it then fails the binary
// if a goroutine they started is still running (leakcheck.Check, run after
// the servers stop so their own goroutines are gone). Use it as
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// If the process dies without m.Run returning, the parent-death signal stops
// the servers instead (see the package doc).
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit: it returns the exit code, so a TestMain can
// remove what it set up for every test (built binaries, say) before exiting
// with it.
func Run(m *testing.M) int {
	mainRunning.Store(true)
	return runMain(m)
}

func runMain(m *testing.M) int {
	code := runAndStop(m)
	if code == 0 {
		if err := leakcheck.Check(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	return code
}

func runAndStop(m *testing.M) (code int) {
	// Deferred so the servers are stopped even when a panic unwinds through
	// m.Run.
	defer func() {
		if err := stopAll(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}()
	return m.Run()
}

func stopAll() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	liveMu.Lock()
	servers := slices.Collect(maps.Keys(live))
	liveMu.Unlock()
	var errs []error
	for _, s := range servers {
		if !s.shared {
			errs = append(errs, fmt.Errorf("pgtest: the server on port %d from StartServer was never stopped; call t.Cleanup with its Stop right after starting it", s.port))
		}
		if err := s.Stop(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Server returns the test binary's shared server, starting it on first use.
// If it cannot start, the test fails when $CI is non-empty (CI must not pass
// by skipping the database suite) and is skipped otherwise, with the reason
// and how to install PostgreSQL. The first start logs the version to stderr.
func Server(t testing.TB) *Srv {
	t.Helper()
	if !mainRunning.Load() {
		t.Fatal("pgtest: add func TestMain(m *testing.M) { pgtest.Main(m) } to this package; Main is what stops the server after the tests")
	}
	sharedOnce.Do(startShared)
	if sharedErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v\n(PostgreSQL is required when $CI is set)", sharedErr)
		}
		t.Skipf("skipping: %v\ninstall PostgreSQL with: apt-get install -y postgresql (or set $%s to a PostgreSQL bin directory)",
			sharedErr, BinDirEnv)
	}
	return shared
}

func startShared() {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	shared, sharedErr = startServer(ctx, Options{}, true)
	if sharedErr == nil {
		fmt.Fprintf(os.Stderr, "pgtest: PostgreSQL %s started on port %d in %s\n", shared.Version(), shared.Port(), shared.base.path)
	}
}

// Database is a database of its own for one test on the shared server.
type Database struct {
	Name string
	// URL connects to it as the superuser.
	URL string
}

// NewDatabase creates a uniquely named database on the shared server and
// registers a cleanup that drops it, terminating any sessions still in it.
func NewDatabase(t testing.TB) *Database {
	t.Helper()
	return Server(t).NewDatabase(t)
}

// NewDatabase creates a uniquely named database on s and registers a
// cleanup that drops it, terminating any sessions still in it.
func (s *Srv) NewDatabase(t testing.TB) *Database {
	t.Helper()
	return s.newDatabase(t, "")
}

// newDatabase creates the test's database with the CREATE DATABASE options
// given (e.g. a template).
func (s *Srv) newDatabase(t testing.TB, options string) *Database {
	t.Helper()
	name := databaseName(t.Name(), dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(t.Context(), adminTimeout)
	defer cancel()
	if err := s.adminExec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+options); err != nil {
		t.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		// t.Context is already cancelled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
		defer cancel()
		// WITH (FORCE) (PostgreSQL 13+) terminates the sessions and drops
		// in one statement, so a straggling connection cannot slip in
		// between the two.
		if err := s.adminExec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: dropping database %s: %v", name, err)
		}
	})
	return &Database{Name: name, URL: s.SuperuserURL(name)}
}

// databaseName derives a name from the test's, so a database left behind by
// a crash says which test made it; seq makes it unique in this process,
// which is all that shares the server. At most 63 bytes, PostgreSQL's limit.
func databaseName(testName string, seq uint64) string {
	const maxStem = 40
	var b strings.Builder
	underscore := true // no leading underscore
	for _, r := range strings.ToLower(testName) {
		if b.Len() >= maxStem {
			break
		}
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			b.WriteRune(r)
			underscore = false
		case !underscore:
			b.WriteByte('_')
			underscore = true
		}
	}
	return fmt.Sprintf("t_%s_%d", strings.TrimSuffix(b.String(), "_"), seq)
}

// Pool opens a superuser pool on the database, closed on cleanup (before
// the database is dropped, as cleanups run last-in first-out).
func (d *Database) Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(d.URL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	cfg.MaxConns = poolMaxConns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("pgtest: pool for %s: %v", d.Name, err)
	}
	t.Cleanup(pool.Close)
	if err := pool.Ping(t.Context()); err != nil {
		t.Fatalf("pgtest: connecting to %s: %v", d.Name, err)
	}
	return pool
}

// TempDir returns a directory the server user can own files in, e.g. for
// Options.DataDir, removed on cleanup. As root t.TempDir() will not do: its
// parents are root's 0700 dirs, which postgres cannot enter.
func TempDir(t testing.TB) string {
	t.Helper()
	owner, err := serverOwner()
	if err != nil {
		t.Fatal(err)
	}
	d, err := newLockedDir(owner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.remove(); err != nil {
			t.Errorf("pgtest: removing %s: %v", d.path, err)
		}
	})
	return d.path
}

// adminExec runs one statement as the superuser in the postgres database.
// A short-lived connection rather than a pool: it leaves no background
// goroutines for goleak-checking packages to trip over.
func (s *Srv) adminExec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.SuperuserURL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// WriteServerFile writes a file the server reads as its own (a TLS key
// must belong to the server user and be readable by it alone) into dir,
// a TempDir, and returns its path.
func WriteServerFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	owner, err := serverOwner()
	if err == nil {
		err = chownTree(path, owner)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}
