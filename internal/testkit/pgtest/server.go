package pgtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Options configures StartServer. The zero value starts a fresh cluster with
// the harness settings (see harnessConf).
type Options struct {
	// BinDir holds initdb, pg_ctl and postgres. Empty: discovered as the
	// package doc describes ($QL_TEST_PG_BIN, PATH, /usr/lib/postgresql).
	BinDir string
	// ExtraConf adds or overrides postgresql.conf settings after the harness
	// defaults. Values are plain text; pgtest quotes them. port,
	// listen_addresses and unix_socket_directories are the harness's (Srv
	// reports them) and are rejected.
	ExtraConf map[string]string
	// DataDir is the cluster directory. Empty: a fresh one inside the
	// server's temp dir, deleted by Stop. A caller's DataDir is never deleted,
	// so a test can stop a server and start another on the same data. As root
	// it is chowned to postgres and its parents must be searchable by
	// postgres; TempDir returns such a place.
	DataDir string
	// SkipInitdb starts on the existing cluster in DataDir (e.g. a standby
	// made with pg_basebackup) instead of creating one. Requires DataDir.
	SkipInitdb bool
	// HBA, when set, is the server's pg_hba.conf in place of initdb's
	// trust lines: written into the server's temp dir, gone with it.
	HBA string
}

const (
	// superuser is the bootstrap role initdb creates, whatever the OS user.
	superuser = "postgres"
	// startTimeout bounds StartServer when ctx has no deadline: initdb with
	// fsync on a busy CI disk takes seconds, never minutes.
	startTimeout = 2 * time.Minute
	// startAttempts bounds retries after losing the free port to another
	// process between choosing it and postgres binding it.
	startAttempts = 5
	// readyPollInterval paces polling of postmaster.pid, which is the only
	// readiness signal postgres gives (pg_ctl -w polls it too).
	readyPollInterval = 20 * time.Millisecond
	// logTailLines is how much of the server log a start error carries.
	logTailLines = 30
	// confFile holds the harness settings inside the data directory; it is
	// rewritten on every start because port and socket dir change.
	confFile    = "pgtest.conf"
	includeLine = "include '" + confFile + "'"
)

// harnessConf is what every server gets before Options.ExtraConf.
var harnessConf = map[string]string{
	// Parallel tests share one server; see poolMaxConns.
	"max_connections": "200",
	// Modest because `go test ./...` runs one server per package binary at
	// the same time.
	"shared_buffers": "32MB",
	// Explicit: durability is under test, so never trade it for speed here.
	"fsync":            "on",
	"log_min_messages": "warning",
	// Fault tests build streaming standbys from these servers.
	"wal_level":       "replica",
	"max_wal_senders": "10",
	// Rendered timestamps in results and logs must not depend on the host.
	"timezone":     "UTC",
	"log_timezone": "UTC",
	// The log is the file handed to postgres as stderr.
	"logging_collector": "off",
}

// harnessOwned settings are written last on every start and cannot be
// overridden: Port, SocketDir and SuperuserURL report them.
var harnessOwned = map[string]bool{"port": true, "listen_addresses": true, "unix_socket_directories": true}

var confNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

var errPortTaken = errors.New("port taken before postgres could bind it")

// Validate reports the first invalid field; it does no I/O (StartServer
// checks BinDir and DataDir on disk).
func (o Options) Validate() error {
	if o.SkipInitdb && o.DataDir == "" {
		return errors.New("pgtest: Options.SkipInitdb requires Options.DataDir, the existing cluster to start")
	}
	if _, set := o.ExtraConf["hba_file"]; set && o.HBA != "" {
		return errors.New("pgtest: Options.HBA and Options.ExtraConf[\"hba_file\"] both name the server's pg_hba.conf; give one")
	}
	for _, name := range slices.Sorted(maps.Keys(o.ExtraConf)) {
		switch value := o.ExtraConf[name]; {
		case !confNameRE.MatchString(name):
			return fmt.Errorf("pgtest: Options.ExtraConf[%q]: not a setting name (letters, digits, '_', '.')", name)
		case harnessOwned[strings.ToLower(name)]:
			return fmt.Errorf("pgtest: Options.ExtraConf[%q]: set by the harness on every start (Srv reports it); not overridable", name)
		case strings.ContainsAny(value, "\n\r\x00"):
			return fmt.Errorf("pgtest: Options.ExtraConf[%q]: value must be a single line", name)
		}
	}
	return nil
}

// Srv is a running private PostgreSQL server. Its accessors are safe for
// concurrent use; they describe the server as started and stay valid after
// Stop.
type Srv struct {
	binDir     string
	owner      *osUser // nil: programs run as ourselves
	base       *lockedDir
	dataDir    string
	sockDir    string
	logPath    string
	shared     bool // the per-binary server from Server, not a test's own
	port       int
	extraConf  map[string]string
	version    string
	versionNum int
	proc       *process

	stopMu  sync.Mutex
	stopped bool
}

// StartServer initialises (unless opts.SkipInitdb) and starts an independent
// server, returning once it accepts connections. The caller must Stop it,
// normally via t.Cleanup right away; Main reports and stops any it finds
// still running. The shared server from Server is started the same way.
func StartServer(ctx context.Context, opts Options) (*Srv, error) {
	return startServer(ctx, opts, false)
}

func startServer(ctx context.Context, opts Options, shared bool) (*Srv, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, startTimeout)
		defer cancel()
	}
	binDir := opts.BinDir
	if binDir == "" {
		var err error
		if binDir, err = findBinDir(); err != nil {
			return nil, err
		}
	} else if err := checkBinDir(binDir); err != nil {
		return nil, fmt.Errorf("pgtest: Options.BinDir: %w", err)
	}
	owner, err := serverOwner()
	if err != nil {
		return nil, err
	}
	base, err := newLockedDir(owner)
	if err != nil {
		return nil, err
	}
	s := &Srv{
		binDir:  binDir,
		owner:   owner,
		base:    base,
		dataDir: filepath.Join(base.path, "data"),
		sockDir: filepath.Join(base.path, "sock"),
		logPath: filepath.Join(base.path, "postgres.log"),
		shared:  shared,
	}
	if err := s.start(ctx, opts); err != nil {
		if s.proc != nil {
			s.proc.kill()
		}
		return nil, errors.Join(err, base.remove())
	}
	track(s)
	return s, nil
}

func (s *Srv) start(ctx context.Context, opts Options) error {
	if opts.DataDir != "" {
		abs, err := filepath.Abs(opts.DataDir)
		if err != nil {
			return fmt.Errorf("pgtest: Options.DataDir: %w", err)
		}
		if err := checkSearchable(abs, s.owner); err != nil {
			return err
		}
		s.dataDir = abs
	}
	if err := os.Mkdir(s.sockDir, 0o700); err != nil {
		return fmt.Errorf("pgtest: socket dir: %w", err)
	}
	if err := chownTree(s.sockDir, s.owner); err != nil {
		return fmt.Errorf("pgtest: socket dir: %w", err)
	}
	if opts.SkipInitdb {
		if _, err := os.Stat(filepath.Join(s.dataDir, "PG_VERSION")); err != nil {
			return fmt.Errorf("pgtest: Options.DataDir %s is not a PostgreSQL cluster: %w", s.dataDir, err)
		}
		// A cluster prepared by a root process (pg_basebackup run by the
		// test, say) must belong to the server user before postgres will
		// start on it.
		if err := chownTree(s.dataDir, s.owner); err != nil {
			return fmt.Errorf("pgtest: Options.DataDir: %w", err)
		}
	} else if err := s.initdb(ctx); err != nil {
		return err
	}
	if err := s.includeHarnessConf(); err != nil {
		return err
	}
	s.extraConf = opts.ExtraConf
	if opts.HBA != "" {
		hba, err := s.writeHBA(opts.HBA)
		if err != nil {
			return err
		}
		s.extraConf = maps.Clone(opts.ExtraConf)
		if s.extraConf == nil {
			s.extraConf = map[string]string{}
		}
		s.extraConf["hba_file"] = hba
	}
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		err = s.launch(ctx, port)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || attempt == startAttempts {
			return err
		}
	}
	return s.loadVersion(ctx)
}

// writeHBA writes the server's pg_hba.conf into its temp dir, readable
// by the server's account, and returns its path.
func (s *Srv) writeHBA(content string) (string, error) {
	path := filepath.Join(s.base.path, "pg_hba.conf")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return "", fmt.Errorf("pgtest: pg_hba.conf: %w", err)
	}
	if s.owner != nil {
		if err := os.Chown(path, int(s.owner.uid), int(s.owner.gid)); err != nil {
			return "", fmt.Errorf("pgtest: pg_hba.conf: %w", err)
		}
	}
	return path, nil
}

func (s *Srv) initdb(ctx context.Context) error {
	// initdb would create a missing DataDir itself, but as root its parent
	// may not be writable by postgres; creating it here and handing it over
	// avoids that.
	if err := os.MkdirAll(s.dataDir, 0o700); err != nil {
		return fmt.Errorf("pgtest: data dir: %w", err)
	}
	if s.owner != nil {
		if err := os.Chown(s.dataDir, int(s.owner.uid), int(s.owner.gid)); err != nil {
			return fmt.Errorf("pgtest: data dir: %w", err)
		}
	}
	// C locale and UTF8 so collation and messages do not vary with the host;
	// trust because only we can reach the server (loopback and a 0700 socket
	// dir). initdb's default sync of the new cluster is kept: fsync is on.
	cmd := command(ctx, s.binDir, s.owner, s.base.path, "initdb",
		"--pgdata", s.dataDir, "--username", superuser, "--auth", "trust",
		"--encoding", "UTF8", "--locale", "C")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: initdb: %w\n%s", err, tail(string(out)))
	}
	return nil
}

// includeHarnessConf appends the include of confFile to postgresql.conf
// once. Last in the file, so its settings win over initdb's; a standby
// copied from a pgtest server already has the line.
func (s *Srv) includeHarnessConf() error {
	path := filepath.Join(s.dataDir, "postgresql.conf")
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if slices.Contains(strings.Split(string(b), "\n"), includeLine) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	_, err = fmt.Fprintf(f, "\n# Added by pgtest: harness settings, rewritten on every start.\n%s\n", includeLine)
	return errors.Join(err, f.Close())
}

// writeConf writes confFile for one start. PostgreSQL takes the last
// occurrence of a setting, so ExtraConf overrides the defaults and the
// harness-owned settings come last.
func (s *Srv) writeConf(port int, extra map[string]string) error {
	var b strings.Builder
	b.WriteString("# Written by pgtest on every start; edits are lost.\n")
	for _, settings := range []map[string]string{
		harnessConf,
		extra,
		{"port": strconv.Itoa(port), "listen_addresses": "127.0.0.1", "unix_socket_directories": s.sockDir},
	} {
		for _, name := range slices.Sorted(maps.Keys(settings)) {
			fmt.Fprintf(&b, "%s = %s\n", name, quoteConf(settings[name]))
		}
	}
	path := filepath.Join(s.dataDir, confFile)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return chownTree(path, s.owner)
}

// quoteConf quotes any value for postgresql.conf, which accepts quoted
// numbers and booleans too, so callers never need to know which kind a
// setting is. Backslash is an escape character there.
func quoteConf(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(v) + "'"
}

// launch starts postgres on port and waits until it is ready.
func (s *Srv) launch(ctx context.Context, port int) error {
	if err := s.writeConf(port, s.extraConf); err != nil {
		return err
	}
	logFile, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pgtest: server log: %w", err)
	}
	defer logFile.Close() //nolint:errcheck // postgres keeps its own descriptor once started
	fi, err := logFile.Stat()
	if err != nil {
		return fmt.Errorf("pgtest: server log: %w", err)
	}
	logStart := fi.Size()

	// Not tied to ctx: ctx bounds the start, not the server's life.
	cmd := command(context.Background(), s.binDir, s.owner, s.base.path, "postgres", "-D", s.dataDir)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Own process group, so Stop's last resort kills the postmaster and its
	// backends in one signal.
	cmd.SysProcAttr.Setpgid = true
	setParentDeathSignal(cmd.SysProcAttr)
	proc, err := startPinned(cmd)
	if err != nil {
		return fmt.Errorf("pgtest: starting postgres: %w", err)
	}
	if err := awaitReady(ctx, s.dataDir, proc); err != nil {
		proc.kill()
		log := readFrom(s.logPath, logStart)
		if strings.Contains(log, "Address already in use") {
			return fmt.Errorf("pgtest: port %d: %w", port, errPortTaken)
		}
		return fmt.Errorf("pgtest: postgres did not start: %w\n--- tail of %s ---\n%s", err, s.logPath, tail(log))
	}
	s.port, s.proc = port, proc
	return nil
}

func (s *Srv) loadVersion(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.SuperuserURL("postgres"))
	if err != nil {
		return fmt.Errorf("pgtest: connecting to the new server: %w", err)
	}
	defer conn.Close(ctx)
	var full string
	err = conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')::int").
		Scan(&full, &s.versionNum)
	if err != nil {
		return fmt.Errorf("pgtest: reading server version: %w", err)
	}
	// Packaged builds append their origin, e.g. "15.18 (Debian 15.18-1.pgdg12+1)".
	s.version, _, _ = strings.Cut(full, " ")
	return nil
}

// Stop shuts the server down and deletes its temp dir (including the data
// directory unless Options.DataDir supplied it). It asks for a fast
// shutdown, which ends sessions and checkpoints; if ctx ends first it kills
// the server's process group and returns an error wrapping ctx's cause.
// Stopping an already stopped or already dead server (e.g. killed by a fault
// test) returns nil.
func (s *Srv) Stop(ctx context.Context) error {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	untrack(s)
	forgetTemplates(s)
	return errors.Join(s.proc.shutdown(ctx), s.base.remove())
}

// Restart shuts the server down (fast shutdown: every session ends), keeps
// it down for down, and starts it again on the same data directory, port
// and socket directory, returning once it accepts connections: clients
// holding its URL see a real server restart. Not for the shared server,
// which other tests are using.
func (s *Srv) Restart(ctx context.Context, down time.Duration) error {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	switch {
	case s.shared:
		return errors.New("pgtest: Restart of the shared server would break every other test; start a server of your own")
	case s.stopped:
		return errors.New("pgtest: Restart of a stopped server")
	}
	if err := s.proc.shutdown(ctx); err != nil {
		return err
	}
	select {
	case <-time.After(down):
	case <-ctx.Done():
		return fmt.Errorf("pgtest: restart: %w", context.Cause(ctx))
	}
	return s.launch(ctx, s.port)
}

// Version is the server version without packaging suffix, e.g. "15.18".
func (s *Srv) Version() string { return s.version }

// VersionNum is server_version_num, e.g. 150018.
func (s *Srv) VersionNum() int { return s.versionNum }

// SuperuserURL is a URL for database db over TCP as the superuser.
func (s *Srv) SuperuserURL(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, s.port, url.PathEscape(db))
}

// BinDir is the directory the server's programs came from.
func (s *Srv) BinDir() string { return s.binDir }

// Port is the TCP port on 127.0.0.1 (also the unix socket's number).
func (s *Srv) Port() int { return s.port }

// DataDir is the cluster directory.
func (s *Srv) DataDir() string { return s.dataDir }

// SocketDir holds the server's unix socket (.s.PGSQL.<Port>).
func (s *Srv) SocketDir() string { return s.sockDir }

// PID is the postmaster's process id, for fault tests that signal it.
func (s *Srv) PID() int { return s.proc.pid }

// process is a postmaster started by startPinned.
type process struct {
	cmd  *exec.Cmd
	pid  int
	done chan struct{} // closed once the postmaster has exited and been reaped
	err  error         // cmd.Wait's result; read only after done is closed
}

// startPinned starts cmd from a goroutine locked to its OS thread. The
// parent-death signal fires when the thread that forked the child exits,
// not the process (go.dev/issue/27505); keeping that goroutine locked and
// waiting for the child makes the thread outlive the postmaster unless the
// whole process dies, which is exactly when the signal should fire.
func startPinned(cmd *exec.Cmd) (*process, error) {
	p := &process{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go waitPinned(p, started)
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

func waitPinned(p *process, started chan<- error) {
	// Locked until this returns after Wait (never unlocked, so the runtime
	// then retires the thread): while the postmaster lives no other
	// goroutine can run on, and end, the forking thread.
	runtime.LockOSThread()
	if err := p.cmd.Start(); err != nil {
		started <- err
		return
	}
	p.pid = p.cmd.Process.Pid
	started <- nil
	p.err = p.cmd.Wait()
	close(p.done)
}

// shutdown asks for a fast shutdown (SIGINT) and waits for it, falling back
// to kill when ctx ends first.
func (p *process) shutdown(ctx context.Context) error {
	// Signal goes through the process's pidfd, so it cannot hit a reused pid;
	// ErrProcessDone just means it is already gone.
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("pgtest: signalling postgres (pid %d): %w", p.pid, err)
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
	}
	p.kill()
	return fmt.Errorf("pgtest: postgres (pid %d) did not finish its fast shutdown in time and was killed: %w", p.pid, context.Cause(ctx))
}

// kill SIGKILLs the postmaster's process group, so backends die with it
// rather than lingering until they notice, and waits until it is reaped.
func (p *process) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	<-p.done
}

// awaitReady polls postmaster.pid until postgres reports ready (or standby,
// for a hot standby), it exits, or ctx ends.
func awaitReady(ctx context.Context, dataDir string, p *process) error {
	tick := time.NewTicker(readyPollInterval)
	defer tick.Stop()
	for {
		if postmasterReady(dataDir, p.pid) {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("postgres exited during startup (%v)", p.err)
		case <-ctx.Done():
			return fmt.Errorf("waiting for readiness: %w", context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// postmasterReady reads postmaster.pid: pid, data dir, start time, port,
// socket dir, listen address, shared memory key, status (PostgreSQL 10+).
// The pid must be ours, so a stale file left in a reused DataDir by a
// crashed server cannot pass for readiness.
func postmasterReady(dataDir string, pid int) bool {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 8 || strings.TrimSpace(lines[0]) != strconv.Itoa(pid) {
		return false
	}
	switch strings.TrimSpace(lines[7]) {
	case "ready", "standby":
		return true
	}
	return false
}

// freePort asks the kernel for an unused port. Another process can take it
// before postgres binds it; launch detects that and start retries.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: finding a free port: %w", err)
	}
	defer l.Close() //nolint:errcheck // only reserved a port number
	return l.Addr().(*net.TCPAddr).Port, nil
}

// readFrom returns the log written since offset; errors yield what could be
// read, since this only decorates another error.
func readFrom(path string, offset int64) string {
	b, _ := os.ReadFile(path)
	if offset > int64(len(b)) {
		offset = 0
	}
	return string(b[offset:])
}

func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return strings.Join(lines, "\n")
}
