package replica

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/netaddr"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// settings are a replica's validated settings.
type settings struct {
	Coordinator scheduler.Config
	// Version and Commit are the serving binary's, which the ready line
	// carries: after a binary is replaced, the log says which one started.
	Version, Commit string
	HTTPAddr        string
	// HTTPTLS is nil for plain HTTP (a loopback address, or
	// --insecure-http); AllowedHosts the API's Host allow-list.
	HTTPTLS      *tls.Config
	AllowedHosts []string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client.
	TrustedProxies []netip.Prefix
	// MetricsAddr serves /metrics on a listener of its own; empty: off.
	MetricsAddr string
	// MetricsPerTrigger is the most triggers /metrics gives series of
	// their own; 0 is off.
	MetricsPerTrigger int
	// DatabaseURL is the runtime role's URL with application_name set to
	// the replica id (unless the URL sets one), so pg_stat_activity names
	// the replica behind every backend.
	DatabaseURL string
	RolePrefix  string
	Worker      workerSettings
	Notify      notifySettings
	Retention   retentionSettings
	// RetentionCadence is the wait between retention passes (default
	// retention.DefaultCadence; tests shorten it).
	RetentionCadence time.Duration
	// SetupCodeDir is where the first owner's setup code is written
	// while no account exists ("" none: no setup page).
	SetupCodeDir string
	// beforeBeatRound, when set, runs at the start of every round of the
	// heartbeat loop; tests hold the loop's rounds with it to show that
	// readiness does not wait for them. Nil outside tests.
	beforeBeatRound func(context.Context)
}

// notifySettings shape the delivery of the notification outbox; Secrets is
// the file the channels' secrets are read from ("" none).
type notifySettings struct {
	Backoff     time.Duration
	MaxAttempts int
	Secrets     string
	ConsoleURL  string
	// Loopback lets channels reach this host's loopback addresses.
	Loopback bool
}

// retentionSettings are the retention loop's: it runs when the policy
// deletes something and a maintenance role URL is given.
type retentionSettings struct {
	Policy retention.Policy
	// URL is the maintenance role's, named like DatabaseURL; "" when
	// none was given.
	URL string
}

// workerSettings are the worker ingress's.
type workerSettings struct {
	Addr string
	// TLS is nil on a loopback address without a certificate.
	TLS      *tls.Config
	Settings pgstore.WorkerSettings
}

// Worker ingress defaults and bounds. A run lease is renewed every third
// of it, so the shortest keeps a renewal a second apart and the longest
// bounds how late a dead worker's Run is noticed.
const (
	DefaultWorkerAddr = workerproto.DefaultIngressAddr
	DefaultRunLease   = 30 * time.Second
	MinRunLease       = 3 * time.Second
	MaxRunLease       = 10 * time.Minute
	MinLogCap         = 4 << 10
	MaxLogCap         = 1 << 30
)

// Profile is the cli.Profile of the cluster: Serve, and the defaults its
// settings apply.
func Profile() cli.Profile {
	c := scheduler.Config{}.WithDefaults()
	return cli.Profile{Serve: Serve, Defaults: cli.ServeDefaults{
		PageSize: c.PageSize, Cadence: c.Cadence, Grace: c.Grace, StopTimeout: c.StopTimeout,
		Concurrency: cli.NoConcurrency, LogMaxBytes: workerproto.DefaultLogCap, LogMaxBytesMin: MinLogCap, LogMaxBytesMax: MaxLogCap,
		Retention: retention.ClusterDefaults,
		HTTPAddr:  httpapi.DefaultAddr, LogFormat: cli.LogJSON,
		Lease: c.Lease, CommitParallel: c.Parallel, WorkerAddr: DefaultWorkerAddr, RunLease: DefaultRunLease,
		Bounds: bounds(),
	}}
}

// runLeaseBound is the range of --run-lease, as its refusal states it.
var runLeaseBound = validate.Duration(MinRunLease) + "–" + validate.Duration(MaxRunLease) + " (whole milliseconds)"

// bounds are the ranges of the settings whose range leaves 0 out, by
// flag, as settingsFrom's refusals state them (cli.ServeDefaults.Bounds).
func bounds() map[string]string {
	b := map[string]string{"run-lease": runLeaseBound}
	for field, flag := range flagOf {
		if allowed, ok := scheduler.Bounds[field]; ok {
			b[strings.TrimPrefix(flag, "--")] = allowed
		}
	}
	return b
}

// flagOf names the command-line setting behind each scheduler field.
var flagOf = map[string]string{
	"Owner":       "--replica-id",
	"PageSize":    "--page-size",
	"Parallel":    "--commit-parallel",
	"Lease":       "--lease",
	"Cadence":     "--cadence",
	"StopTimeout": "--stop-timeout",
	"Grace":       "--misfire-grace",
	"ClaimAhead":  "--claim-ahead",
}

// settingsFrom validates every setting without touching the network. Any
// error is a *cli.UsageError (exit 2) naming the setting and what it allows.
func settingsFrom(f *cli.ServeFlags) (settings, error) {
	if err := rejectSingleNodeFlags(f); err != nil {
		return settings{}, err
	}
	owner := f.ReplicaID
	if owner == "" {
		owner = defaultReplicaID(os.Hostname, os.Getpid())
	}
	cfg := scheduler.Config{
		Owner: owner, PageSize: f.PageSize, Parallel: f.CommitParallel, Lease: f.Lease, Cadence: f.Cadence, StopTimeout: f.StopTimeout, Grace: f.Grace, GraceSet: f.GraceSet,
		ClaimAhead: f.ClaimAhead,
	}.WithDefaults()
	if err := cfg.Validate(); err != nil {
		var fe *scheduler.FieldError
		if errors.As(err, &fe) {
			if fe.Field == "Owner" {
				return settings{}, cli.Usagef("%s %s is not allowed: use %s", flagOf[fe.Field], fe.Value, fe.Allowed)
			}
			// Worded as the single-node profiles word a setting out of
			// range: the flag as typed, its value, the range.
			return settings{}, cli.Usagef("%s %s is outside %s", flagOf[fe.Field], fe.Value, fe.Allowed)
		}
		return settings{}, &cli.UsageError{Err: err}
	}
	if cfg.Lease%time.Millisecond != 0 {
		return settings{}, cli.Usagef("--lease %s must be a whole number of milliseconds", cfg.Lease)
	}
	if err := (pgstore.RolesConfig{Prefix: f.RolePrefix}).Validate(); err != nil {
		return settings{}, cli.Usagef("--role-prefix: %v", err)
	}
	addr := f.HTTPAddr
	if addr == "" {
		addr = httpapi.DefaultAddr
	}
	if err := checkListenAddr(addr); err != nil {
		return settings{}, err
	}
	dbURL, err := runtimeURL(f.DatabaseURL, owner)
	if err != nil {
		return settings{}, err
	}
	worker, err := workerSettingsFrom(f)
	if err != nil {
		return settings{}, err
	}
	httpTLS, err := httpapi.LoadTLS(addr, httpapi.TLSSettings{Cert: f.TLSCert, Key: f.TLSKey, Insecure: f.InsecureHTTP})
	if err != nil {
		return settings{}, &cli.UsageError{Err: err}
	}
	if err := notify.CheckSettings(f.NotifyBackoff, f.NotifyMaxAttempts); err != nil {
		return settings{}, &cli.UsageError{Err: err}
	}
	if err := notify.CheckConsoleURL(f.ConsoleURL); err != nil {
		return settings{}, &cli.UsageError{Err: err}
	}
	if err := metrics.CheckPerTrigger(f.MetricsPerTrigger); err != nil {
		return settings{}, &cli.UsageError{Err: err}
	}
	policy, err := f.Retention.Resolve(retention.ClusterDefaults)
	if err != nil {
		return settings{}, &cli.UsageError{Err: err}
	}
	proxies, err := httpapi.ParseTrustedProxies(cli.SplitList(f.TrustedProxies))
	if err != nil {
		return settings{}, &cli.UsageError{Err: err}
	}
	allowed := cli.SplitList(f.AllowedHosts)
	if err := httpapi.CheckAllowedHosts(allowed); err != nil {
		return settings{}, &cli.UsageError{Err: err}
	}
	if err := checkSecretsFile(f.SecretsFile); err != nil {
		return settings{}, err
	}
	if err := checkSetupCodeDir(f.SetupCodeDir); err != nil {
		return settings{}, err
	}
	ret := retentionSettings{Policy: policy}
	if f.MaintenanceURL != "" {
		if ret.URL, err = namedURL("--database-maintenance-url", f.MaintenanceURL, owner); err != nil {
			return settings{}, err
		}
	}
	return settings{Coordinator: cfg, HTTPAddr: addr, HTTPTLS: httpTLS, AllowedHosts: httpapi.DefaultAllowedHosts(addr, allowed),
		TrustedProxies: proxies,
		MetricsAddr:    f.MetricsAddr, MetricsPerTrigger: f.MetricsPerTrigger, DatabaseURL: dbURL, RolePrefix: f.RolePrefix, Worker: worker,
		Notify:    notifySettings{Backoff: f.NotifyBackoff, MaxAttempts: f.NotifyMaxAttempts, Secrets: f.SecretsFile, ConsoleURL: f.ConsoleURL, Loopback: f.NotifyLoopback},
		Retention: ret, SetupCodeDir: f.SetupCodeDir, Version: f.Version, Commit: f.Commit}, nil
}

// workerSettingsFrom validates the worker ingress's settings and loads its
// certificate: workers send their credential on every request, so an
// address other hosts can reach is served over TLS only.
func workerSettingsFrom(f *cli.ServeFlags) (workerSettings, error) {
	w := workerSettings{Addr: f.WorkerAddr, Settings: pgstore.WorkerSettings{RunLease: f.RunLease, LogCap: f.LogMaxBytes}}
	if w.Addr == "" {
		w.Addr = DefaultWorkerAddr
	}
	if w.Settings.RunLease == 0 {
		w.Settings.RunLease = DefaultRunLease
	}
	if w.Settings.LogCap == 0 {
		w.Settings.LogCap = workerproto.DefaultLogCap
	}
	if l := w.Settings.RunLease; l < MinRunLease || l > MaxRunLease || l%time.Millisecond != 0 {
		return w, cli.Usagef("--run-lease %s is outside %s", validate.Duration(l), runLeaseBound)
	}
	if c := w.Settings.LogCap; c < MinLogCap || c > MaxLogCap {
		return w, cli.Usagef("--log-max-bytes %s is outside %s–%s", retention.FormatBytes(c), retention.FormatBytes(MinLogCap), retention.FormatBytes(MaxLogCap))
	}
	host, err := checkAddr("--worker-addr", w.Addr, DefaultWorkerAddr)
	if err != nil {
		return w, err
	}
	switch {
	case (f.WorkerTLSCert == "") != (f.WorkerTLSKey == ""):
		return w, cli.Usagef("--worker-tls-cert and --worker-tls-key go together: give both PEM files, or neither on a loopback --worker-addr")
	case f.WorkerTLSCert != "":
		cert, err := httpapi.LoadKeyPair("--worker-tls-cert", f.WorkerTLSCert, "--worker-tls-key", f.WorkerTLSKey)
		if err != nil {
			return w, &cli.UsageError{Err: err}
		}
		w.TLS = httpserve.TLSConfig()
		w.TLS.Certificates = []tls.Certificate{cert}
	case !netaddr.IsLoopbackHost(host):
		return w, cli.Usagef("--worker-addr %s is not a loopback address, and workers send their credential on every request: "+
			"give --worker-tls-cert and --worker-tls-key (PEM files) to serve it over TLS, or bind a loopback address (e.g. %s) behind a TLS-terminating proxy", w.Addr, DefaultWorkerAddr)
	}
	return w, nil
}

// rejectSingleNodeFlags refuses settings that only single-node profiles
// use, rather than silently ignoring them.
func rejectSingleNodeFlags(f *cli.ServeFlags) error {
	for _, s := range []struct {
		name string
		set  bool
	}{
		{"--data-dir", f.DataDir != ""},
		{"--example", f.Example},
		{"--concurrency", f.Concurrency != 0},
		{"--run-as", f.RunAs != ""},
		{"--clock-wait", f.ClockWaitSet},
		{"--after-restore", f.AfterRestore != ""},
		{"--integrity-check", f.IntegrityCheck != ""},
	} {
		if s.set {
			return singleNodeSetting(s.name)
		}
	}
	return nil
}

// rejectGivenSingleNodeFlags refuses a single-node setting given at all
// (flag, environment or file), a 0 too, which the flags read as left out.
func rejectGivenSingleNodeFlags(fs *pflag.FlagSet) error {
	if given := cli.GivenAs(fs, "data-dir", "example", "take-back", "concurrency", "run-as", "scripts-dir", "clock-wait", "after-restore", "integrity-check"); len(given) > 0 {
		return singleNodeSetting(given[0])
	}
	return nil
}

// singleNodeSetting refuses the single-node setting name, saying why the
// cluster has no use for it.
func singleNodeSetting(name string) error {
	why := "the cluster profile runs no local executor and keeps its state in PostgreSQL (--database-url)"
	if name == "--clock-wait" {
		// The hold waits for a host clock that reads behind the database's
		// newest time; a replica never decides by its host's clock.
		why = "a replica decides every time by PostgreSQL's clock, never this host's, so it has no clock to wait for"
	}
	return cli.Usagef("%s is a single-node setting; %s", name, why)
}

func checkListenAddr(addr string) error {
	_, err := checkAddr("--http-addr", addr, httpapi.DefaultAddr+" (loopback only) or 0.0.0.0:8080")
	return err
}

// checkAddr checks a listen address's shape and returns its host.
func checkAddr(flag, addr, example string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		var n int
		n, err = strconv.Atoi(port)
		if err == nil && (n < 0 || n > 65535) {
			err = fmt.Errorf("port %d is outside 0–65535", n)
		}
	}
	if err != nil {
		return "", cli.Usagef("%s %q must be host:port, e.g. %s: %v", flag, addr, example, err)
	}
	return host, nil
}

var hostUnsafe = regexp.MustCompile(`[^A-Za-z0-9_.:-]+`)

// defaultReplicaID is the host name and process id, shaped to the owner
// pattern: host names may carry characters claim owners may not.
func defaultReplicaID(hostname func() (string, error), pid int) string {
	host, err := hostname()
	if err != nil || host == "" {
		host = "replica"
	}
	host = hostUnsafe.ReplaceAllString(host, "-")
	if host[0] == '-' || host[0] == '_' || host[0] == '.' || host[0] == ':' {
		host = "r" + host
	}
	suffix := "-" + strconv.Itoa(pid)
	if len(host) > 128-len(suffix) {
		host = host[:128-len(suffix)]
	}
	return host + suffix
}

var sslModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

// runtimeURL checks the database URL's shape and TLS settings and names
// the replica in application_name. The password, if any, is never echoed.
func runtimeURL(raw, owner string) (string, error) {
	if raw == "" {
		return "", cli.Usagef("--database-url is required for the cluster profile: the runtime role's URL, e.g. postgres://ql_runtime@db:5432/qinglong?sslmode=verify-full (or QL_DATABASE_URL)")
	}
	return namedURL("--database-url", raw, owner)
}

// namedURL checks a database URL's shape and TLS settings and names the
// replica in application_name. The password, if any, is never echoed.
func namedURL(flag, raw, owner string) (string, error) {
	if !cli.IsPostgresURL(raw) {
		return "", cli.Usagef("%s must start with postgres:// or postgresql://", flag)
	}
	u, err := url.Parse(raw)
	if err != nil {
		if problem := pgstore.URLProblem(raw); problem != "" {
			return "", cli.Usagef("%s: %s", flag, problem)
		}
		return "", cli.Usagef("%s cannot be parsed; use postgres://user@host:port/db?sslmode=verify-full (put the password in PGPASSWORD or a password file)", flag)
	}
	q := u.Query()
	if mode := q.Get("sslmode"); mode != "" && !contains(sslModes, mode) {
		return "", cli.Usagef("%s: sslmode %q is not one of %v", flag, mode, sslModes)
	}
	for _, file := range []string{"sslrootcert", "sslcert", "sslkey"} {
		path := q.Get(file)
		if path == "" || path == "system" {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			return "", cli.Usagef("%s: %s %s cannot be read: %v", flag, file, path, errors.Unwrap(err))
		}
	}
	if problem := pgstore.URLProblem(raw); problem != "" {
		return "", cli.Usagef("%s: %s", flag, problem)
	}
	if q.Get("application_name") == "" {
		q.Set("application_name", "qinglong:"+owner)
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkSecretsFile refuses a --secrets-file that does not exist. Only an
// operator writes a replica's file (`ql secrets set --secrets-file`, or a
// copy from a Kubernetes Secret), so a missing one is a path mistyped or a
// copy that did not happen, never a state to start in: started anyway,
// the replica would fail every notification naming a secret, one by one,
// long after the mistake.
func checkSecretsFile(path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return cli.Usagef("--secrets-file %s does not exist: create it with `ql secrets set NAME --secrets-file %s` as the replica's user "+
			"(the value on standard input), correct the path, or leave --secrets-file out when no notification channel names a secret", path, shellquote.Quote(path))
	}
	return nil
}

// checkSetupCodeDir refuses a --setup-code-dir that is not a directory:
// the replica would only find out at its first activation, and offer no
// setup page.
func checkSetupCodeDir(dir string) error {
	if dir == "" {
		return nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return cli.Usagef("--setup-code-dir %s is not a directory: create it, readable by the replica's user alone (mode 0700), or correct the path", dir)
	}
	return nil
}
