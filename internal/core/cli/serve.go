package cli

import (
	"cmp"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// ServeFlags are the settings of `ql serve`. Zero values mean "the
// profile's default" (a 0 given to a flag whose range leaves it out is
// refused before, and a 0 grace given is none: GraceSet); each profile
// validates the ones it uses and names the setting and its allowed range
// when one is out of bounds.
type ServeFlags struct {
	Profile string
	DataDir string
	Example bool
	// TakeBack clears a handed-over database's mark (standalone, edge).
	TakeBack bool
	HTTPAddr string
	// MetricsAddr serves Prometheus metrics at /metrics on a listener of
	// its own; empty: off.
	MetricsAddr string
	DatabaseURL string
	ReplicaID   string
	RolePrefix  string
	PageSize    int
	// CommitParallel is how many admissions of one cluster round commit at
	// once.
	CommitParallel int
	Cadence        time.Duration
	Grace          time.Duration
	// GraceSet: --misfire-grace was given (flag, environment or file), so
	// 0 means no grace rather than the profile's default.
	GraceSet bool
	// ClockWait is how long a single-node server holds while its clock
	// reads behind its database before taking the clock as right;
	// ClockWaitSet says it was given, so 0 means no hold rather than the
	// default.
	ClockWait    time.Duration
	ClockWaitSet bool
	Lease        time.Duration
	// ClaimAhead is how long before a due instant a cluster replica claims
	// the rows due at it; 0 is off.
	ClaimAhead  time.Duration
	StopTimeout time.Duration
	Concurrency int
	// LogMaxBytes caps one attempt's captured output: the local
	// executor's, or on the cluster what workers may append.
	LogMaxBytes int64
	// WorkerAddr is the cluster's worker ingress listener; WorkerTLSCert
	// and WorkerTLSKey its certificate and key files.
	WorkerAddr    string
	WorkerTLSCert string
	WorkerTLSKey  string
	// RunLease is how long a worker's grant of a Run lives without a
	// renewal, in database time.
	RunLease time.Duration
	// TLSCert and TLSKey serve the API over HTTPS; InsecureHTTP allows
	// plain HTTP on an address other hosts can reach; AllowedHosts are
	// Host header names (comma-separated) the API answers to beside the
	// listen address's and the loopback ones.
	TLSCert      string
	TLSKey       string
	InsecureHTTP bool
	AllowedHosts string
	// TrustedProxies are the reverse proxies (comma-separated addresses
	// or CIDR prefixes) whose X-Forwarded-For names the client.
	TrustedProxies string
	// RunAs is the single-node profiles' default account of commands,
	// user[:group].
	RunAs string
	// ScriptsDir is the single-node profiles' scripts folder (default:
	// scripts in the data directory).
	ScriptsDir string
	// AfterRestore is what a single-node server started on a backup's
	// copy does with the occurrences the copy says were missed: catch-up
	// (their misfire policies, the default) or skip-missed.
	AfterRestore string
	// IntegrityCheck is when a single-node server's start reads its whole
	// database file: after-unclean-stop or always.
	IntegrityCheck string
	// NotifyBackoff and NotifyMaxAttempts shape the retries of a
	// notification's delivery.
	NotifyBackoff     time.Duration
	NotifyMaxAttempts int
	// ConsoleURL is the console's address as people reach it: Run
	// notifications link to their Run's page there.
	ConsoleURL string
	// SecretsFile is the cluster replica's secrets file, for the secrets
	// notification channels name.
	SecretsFile string
	// NotifyLoopback lets a cluster replica send notifications to its
	// own host's loopback addresses.
	NotifyLoopback bool
	// SetupCodeDir is where a cluster replica writes the first owner's
	// setup code while no account exists; "" offers no setup page.
	SetupCodeDir string
	// Retention is what the server deletes: finished and lost Runs and
	// logs after a number of days, logs over a total size ("" is the profile's
	// default, "off" or 0 keeps everything).
	Retention retention.Settings
	// MaintenanceURL is the cluster's maintenance role URL: a replica
	// given one runs retention.
	MaintenanceURL string
	// MetricsPerTrigger is the most triggers /metrics gives series of
	// their own; 0 is off.
	MetricsPerTrigger int
	// Log is --log-level and --log-format ("" format: the profile's
	// default); Logger is what serve built from them, the one logger of
	// the profile.
	Log    LogFlags
	Logger *slog.Logger
	// Version and Commit are the binary's, as `version` prints them:
	// the server's ready line carries them, so a replaced binary's start
	// shows in the log which one now serves.
	Version, Commit string
}

// Profiles.
const (
	ProfileStandalone = "standalone"
	ProfileEdge       = "edge"
	ProfileCluster    = "cluster"
)

// profileOrder lists the profiles as help presents them.
var profileOrder = []string{ProfileStandalone, ProfileEdge, ProfileCluster}

// profileHelp describes each profile in `serve --help`, before its
// defaults.
var profileHelp = map[string]string{
	ProfileStandalone: "embedded SQLite at $QL_DATA_DIR/qinglong.db (else ./qinglong.db), local executor",
	ProfileEdge:       "the same on small devices",
	ProfileCluster:    "PostgreSQL, row leases, no leader; runs are executed by remote workers",
}

// profileExample is one `serve` example per profile: %[1]s is the binary,
// %[2]s the --profile flag (empty for the build's default profile).
var profileExample = map[string]string{
	ProfileStandalone: "%[1]s serve%[2]s --example   # with the sample triggers",
	ProfileEdge:       "%[1]s serve%[2]s --data-dir /var/lib/qinglong",
	ProfileCluster:    "QL_DATABASE_URL=postgres://ql_runtime@db/ql?sslmode=verify-full %[1]s serve%[2]s",
}

func serveCommand(opts Options) *cobra.Command {
	f := &ServeFlags{}
	var configFile string
	def := opts.defaultProfile()
	var profiles, descriptions, examples []string
	for _, p := range profileOrder {
		if prof, ok := opts.Profiles[p]; ok {
			profiles = append(profiles, p)
			descriptions = append(descriptions, fmt.Sprintf("  %-20s  %s;\n  %-20s  %s", p, profileHelp[p], "", prof.Defaults.summary()))
			flag := " --profile " + p
			if p == def {
				flag = ""
			}
			examples = append(examples, "  "+fmt.Sprintf(profileExample[p], opts.Binary, flag))
		}
	}
	_, cluster := opts.Profiles[ProfileCluster]
	envExample := "QL_DATA_DIR, QL_HTTP_ADDR"
	if cluster {
		envExample = "QL_DATABASE_URL, QL_HTTP_ADDR"
	}
	// runServe is serve's whole run; its usage errors say where a setting
	// given outside the command line came from (SayWhereSettingCame).
	runServe := func(cmd *cobra.Command) error {
		if err := fillFromFile(opts, cmd.Flags(), configFile); err != nil {
			return err
		}
		if err := CheckListenAddr("--metrics-addr", f.MetricsAddr, "127.0.0.1:9464"); err != nil {
			return err
		}
		f.GraceSet = cmd.Flags().Changed("misfire-grace")
		f.ClockWaitSet = cmd.Flags().Changed("clock-wait")
		prof, ok := opts.Profiles[f.Profile]
		if !ok {
			return Usagef("--profile %q is not available in %s; choose one of %s", f.Profile, opts.Binary, strings.Join(profiles, ", "))
		}
		if err := refuseGivenZero(cmd.Flags(), prof.Defaults); err != nil {
			return err
		}
		var err error
		if f.Logger, err = NewLogger(cmd.ErrOrStderr(), f.Log.Level, cmp.Or(f.Log.Format, prof.Defaults.logFormat())); err != nil {
			return err
		}
		logLastError(cmd, f.Logger, CodeServeFailed)
		f.Version, f.Commit = Version, Commit()
		return prof.Serve(cmd.Context(), cmd, f)
	}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run the scheduler and executor until SIGINT/SIGTERM/SIGHUP (Ctrl-C)",
		Long: `Run QingLong until SIGINT, SIGTERM or SIGHUP (Ctrl-C, a closed terminal), then drain and exit 0.

Profiles in this build (default ` + def + `):
` + strings.Join(descriptions, "\n") + `

Every flag can also come from the environment as QL_<FLAG> (e.g. ` + envExample + `)
or from --config FILE (YAML, flag: value); flags win over the environment, which
wins over the file.`,
		Example: strings.Join(examples, "\n"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return SayWhereSettingCame(cmd.Flags(), runServe(cmd))
		},
	}
	byProfile := func(value func(ServeDefaults) string) string {
		var parts []string
		for _, p := range profiles {
			if v := value(opts.Profiles[p].Defaults); v != "" {
				parts = append(parts, p+" "+v)
			}
		}
		return "default: " + strings.Join(parts, ", ")
	}
	// rangeByProfile states a setting's bounds once when every profile
	// that gives them has the same, else each profile's, so the help
	// states the bound a refusal names ("" when no profile gives one).
	rangeByProfile := func(bounds func(ServeDefaults) string) string {
		var parts, values []string
		for _, p := range profiles {
			if v := bounds(opts.Profiles[p].Defaults); v != "" {
				parts, values = append(parts, p+" "+v), append(values, v)
			}
		}
		switch {
		case len(values) == 0:
			return ""
		case len(slices.Compact(slices.Clone(values))) == 1:
			return values[0] + "; "
		}
		return strings.Join(parts, ", ") + "; "
	}
	// bound states the range of a setting whose range leaves 0 out.
	bound := func(name string) string {
		return rangeByProfile(func(d ServeDefaults) string { return d.bound(name) })
	}
	httpHelp := "HTTP listen address of the web console at / (accounts: see users create), the API under /api/v1 (API tokens: see tokens create) and the probes /livez and /readyz, e.g. 127.0.0.1:8080; " +
		"port 0 picks a free port, the bound address is logged; an address other than loopback needs --tls-cert/--tls-key or --insecure-http ("
	httpHelp += byProfile(func(d ServeDefaults) string {
		if d.HTTPAddr == "" {
			return "off"
		}
		return d.HTTPAddr
	}) + ")"
	fs := c.Flags()
	fs.StringVar(&configFile, "config", "", "optional YAML file of flag: value settings")
	fs.StringVar(&f.Profile, "profile", def, strings.Join(profiles, ", "))
	fs.StringVar(&f.DataDir, "data-dir", "", "data directory for the embedded database (qinglong.db), logs and secrets; one server at a time: a second serve on it exits 4, naming the running one (default $QL_DATA_DIR, else .)")
	fs.BoolVar(&f.Example, "example", false, "apply examples/sample.yaml's triggers before serving, unless its project exists, which is left as it is (standalone, edge)")
	fs.StringVar(&f.HTTPAddr, "http-addr", "", httpHelp)
	fs.StringVar(&f.TLSCert, "tls-cert", "", "PEM certificate (chain) file of the --http-addr listener; serves HTTPS")
	fs.StringVar(&f.TLSKey, "tls-key", "", "PEM private key file of --tls-cert")
	fs.BoolVar(&f.InsecureHTTP, "insecure-http", false, "serve plain HTTP on an --http-addr other hosts can reach (tokens then cross the network in clear text)")
	ListVar(fs, &f.AllowedHosts, "allowed-hosts", "extra host names or IP addresses, without port or scheme, the API answers to in the Host header "+
		"(default: the --http-addr host, localhost, 127.0.0.1, ::1); a guard against DNS rebinding")
	ListVar(fs, &f.TrustedProxies, "trusted-proxies", "addresses or CIDR prefixes of reverse proxies in front of --http-addr whose X-Forwarded-For names the client "+
		"that throttles, limits and audit records key on (default: none; every peer is the client)")
	fs.StringVar(&f.MetricsAddr, "metrics-addr", "", "listen address of Prometheus metrics at /metrics, on a listener of its own, e.g. 127.0.0.1:9464 "+
		"(loopback only) or 0.0.0.0:9464; port 0 picks a free port, the bound address is logged (default: off)")
	fs.IntVar(&f.MetricsPerTrigger, "metrics-per-trigger", 0, "export, for each of at most this many enabled triggers of active projects (the first by project then trigger name), "+
		"when its latest Run succeeded, when its newest Run was created and when it next fires, labelled project and trigger; "+
		"qinglong_triggers_left_out counts the others (0–5000; default 0: off)")
	if cluster {
		cd := opts.Profiles[ProfileCluster].Defaults
		fs.StringVar(&f.DatabaseURL, "database-url", "", "cluster: PostgreSQL URL of the runtime role, without a password (sslmode and sslrootcert honoured; prefer $QL_DATABASE_URL)")
		fs.StringVar(&f.ReplicaID, "replica-id", "", "cluster: this replica's claim owner (default host name + pid)")
		fs.StringVar(&f.RolePrefix, "role-prefix", "", "cluster: prefix of the five database role names readiness checks (default ql_, as 'ql db roles' creates them)")
		fs.IntVar(&f.CommitParallel, "commit-parallel", 0, "cluster: commit groups of a claimed page, committed side by side, one transaction each ("+bound("commit-parallel")+"default "+strconv.Itoa(cd.CommitParallel)+")")
		DurationVar(fs, &f.Lease, "lease", 0, "cluster: claim lease ("+bound("lease")+"default "+validate.Duration(cd.Lease)+")")
		DurationVar(fs, &f.ClaimAhead, "claim-ahead", 0, "cluster: how long before the next due instant the replica claims the rows due at it, so that only their admission remains at the instant "+
			"(0–2s and at most a quarter of --lease; default 0: off, claim at the instant). A replica that stops or dies while it holds rows claimed ahead delays them by a --lease")
		fs.StringVar(&f.WorkerAddr, "worker-addr", "", "cluster: listen address of the worker ingress (default "+cd.WorkerAddr+"; any other than loopback needs --worker-tls-cert and --worker-tls-key)")
		fs.StringVar(&f.WorkerTLSCert, "worker-tls-cert", "", "cluster: PEM certificate (chain) file of the worker ingress; serves HTTPS")
		fs.StringVar(&f.WorkerTLSKey, "worker-tls-key", "", "cluster: PEM private key file of --worker-tls-cert")
		fs.StringVar(&f.SecretsFile, "secrets-file", "", "cluster: JSON secrets file (name: value, mode 0600) holding the secrets notification channels name (default: none)")
		fs.BoolVar(&f.NotifyLoopback, "notify-loopback", false, "cluster: send notifications to loopback addresses (127.0.0.0/8, ::1): a receiver on the replica's own host "+
			"(default: refused, for a channel is written by a project's admin, who would reach the replica host's own services; link-local addresses such as a cloud's metadata service are refused always)")
		fs.StringVar(&f.SetupCodeDir, "setup-code-dir", "", "cluster: existing directory the replica writes the first owner's one-time setup code to, as the file qinglong-setup-code (mode 0600), "+
			"while the database has no console account, for the console's setup page; the file goes once an owner exists and when the replica stops "+
			"(default: none: no setup page, and the first owner is made with 'ql users create NAME --owner' and the admin role's URL)")
		fs.StringVar(&f.MaintenanceURL, "database-maintenance-url", "", "cluster: PostgreSQL URL of the maintenance role, without a password (prefer $"+EnvMaintenanceURL+"); given it, the replica runs retention (the runtime role may not delete)")
		DurationVar(fs, &f.RunLease, "run-lease", 0, "cluster: how long a worker's lease on a Run lives without renewal, in database time ("+bound("run-lease")+"default "+validate.Duration(cd.RunLease)+"); workers renew every third of it")
	}
	fs.IntVar(&f.PageSize, "page-size", 0, "rows taken per round ("+bound("page-size")+
		byProfile(func(d ServeDefaults) string { return strconv.Itoa(d.PageSize) })+")")
	DurationVar(fs, &f.Cadence, "cadence", 0, "wait between rounds that found no more work ("+bound("cadence")+
		byProfile(func(d ServeDefaults) string { return validate.Duration(d.Cadence) })+")")
	DurationVar(fs, &f.Grace, "misfire-grace", 0, "how late an occurrence may be before skip policy drops it (0–24h; 0: only the ones decided within 1s of their time; "+
		byProfile(func(d ServeDefaults) string { return validate.Duration(d.Grace) })+")")
	DurationVar(fs, &f.StopTimeout, "stop-timeout", 0, "drain limit on shutdown ("+bound("stop-timeout")+"single-node: running commands get SIGTERM at half of it, SIGKILL at three quarters; "+
		byProfile(func(d ServeDefaults) string { return validate.Duration(d.StopTimeout) })+")")
	fs.IntVar(&f.Concurrency, "concurrency", 0, "single-node: commands run at once ("+
		bound("concurrency")+byProfile(ServeDefaults.concurrency)+")")
	SizeVar(fs, &f.LogMaxBytes, "log-max-bytes", 0, "cap of one attempt's captured output: 64KiB, 1MiB or bytes ("+
		bound("log-max-bytes")+byProfile(func(d ServeDefaults) string { return retention.FormatBytes(d.LogMaxBytes) })+")")
	fs.StringVar(&f.Retention.Runs, "retention-runs", "", "delete finished Runs, with their attempts, events and logs, this many days (or hours) after they finished, and lost Runs as long after they were found lost: 30 or 30d, 12h, off or 0 keeps them ("+
		byProfile(func(d ServeDefaults) string { return retention.AgeSetting(d.Retention.RunsAge) })+")")
	fs.StringVar(&f.Retention.Logs, "retention-logs", "", "delete the logs of finished and lost Runs this many days (30d) or hours (12h) after they ended; the Runs stay (off or 0 keeps them; "+
		byProfile(func(d ServeDefaults) string { return retention.AgeSetting(d.Retention.LogsAge) })+")")
	fs.StringVar(&f.Retention.LogBytes, "retention-log-bytes", "", "cap of all logs together, oldest deleted first: 1GiB, 64MiB or bytes, at least 1 MiB (off or 0: no cap; "+
		byProfile(func(d ServeDefaults) string { return retention.SizeSetting(d.Retention.LogBytes) })+")")
	fs.StringVar(&f.Retention.Notifications, "retention-notifications", "", "delete delivered and dead notifications this many days (30d) or hours (12h) after they were created, never a pending one; a deleted dead one can no longer be retried (off or 0 keeps them; "+
		byProfile(func(d ServeDefaults) string { return retention.AgeSetting(d.Retention.NotificationsAge) })+")")
	DurationVar(fs, &f.ClockWait, "clock-wait", 0, "single-node: when the clock reads over a minute earlier than the newest time the database recorded "+
		"(a device without a battery-backed clock that booted before NTP set it), admit, start and send nothing, delete nothing and refuse writes for up to this long, "+
		"until the clock passes that time; then take the clock as right (0–24h; 0: at once; "+byProfile(ServeDefaults.clockWait)+")")
	fs.StringVar(&f.AfterRestore, "after-restore", "", "single-node: at the first start on a backup's copy, catch-up (each trigger's misfire policy catches up what the copy says was missed, "+
		"which the old server may already have run after the backup) or skip-missed (pass those occurrences over, recorded with reason restored, and run only what falls due from now) (default catch-up)")
	fs.StringVar(&f.IntegrityCheck, "integrity-check", "", "single-node: when the start reads the whole database file with SQLite's quick_check before serving it: after-unclean-stop "+
		"(unless the last server on this same file stopped cleanly, which leaves the mark qinglong-clean-stop in --data-dir: after a crash, a kill, a power cut, a restore or a copied-in file it reads it) or always (default after-unclean-stop)")
	fs.StringVar(&f.RunAs, "run-as", "", "single-node: user[:group] that runs commands whose task sets no runAs (needs root; default: the server's own user)")
	fs.StringVar(&f.ScriptsDir, "scripts-dir", "", "single-node: the scripts folder the console's Scripts page keeps, created at start when missing (mode 0755); "+
		"every command finds it in $QL_SCRIPTS_DIR (default: scripts in --data-dir, which only the server's own user can reach; give a folder outside it when commands run as another user)")
	DurationVar(fs, &f.NotifyBackoff, "notify-backoff", 0, "wait after a notification's first failed delivery, doubled after each further one, up to "+
		validate.Duration(notify.DefaultMaxBackoff)+" ("+bound("notify-backoff")+"default "+validate.Duration(notify.DefaultBaseBackoff)+")")
	fs.IntVar(&f.NotifyMaxAttempts, "notify-max-attempts", 0, "deliveries of a notification before it is dead, shown by 'notifications list --state dead' ("+
		bound("notify-max-attempts")+"default "+strconv.Itoa(notify.DefaultMaxAttempts)+")")
	fs.StringVar(&f.ConsoleURL, "console-url", "", "the web console's address as people reach it, behind a proxy the proxy's, e.g. https://ql.example.com: "+
		"each notification of a Run links to the Run's page there (default: none, notifications carry no link)")
	f.Log.Add(fs, "", " ("+byProfile(ServeDefaults.logFormat)+")")
	fs.VisitAll(func(fl *pflag.Flag) { BindEnv(fs, fl.Name) })
	// After the binding: taking a database back is one decision at one
	// start, never a setting an environment or a file would repeat at
	// every start.
	fs.BoolVar(&f.TakeBack, "take-back", false, "serve a database that export --with-state handed over, clearing its mark, and start the Runs it held queued: only once every server of the "+
		"database it went to is stopped (standalone, edge; command line only; on a database not handed over it only warns)")
	// After the binding, as on the other commands: no variable sets --db.
	addRetiredDBFlag(fs)
	if !cluster && opts.OpenPostgres == nil {
		addAbsentURLFlag(fs)
	}
	return c
}

// zeroOutOfRange are the serve flags whose range leaves 0 out: left out,
// a flag takes its profile's default, but a 0 given is a mistake to name,
// not a default to apply silently.
var zeroOutOfRange = []string{"page-size", "commit-parallel", "cadence", "lease", "stop-timeout", "concurrency", "log-max-bytes", "run-lease",
	"notify-backoff", "notify-max-attempts"}

// refuseGivenZero refuses a 0 given (flag, environment or file) to a flag
// whose range leaves it out, in the words the profile refuses any other
// value outside that range with (d.bound): the profile itself cannot, as
// it reads a 0 as the setting left out. A flag the profile states no
// range for is one it does not take, refused as such by the profile.
func refuseGivenZero(fs *pflag.FlagSet, d ServeDefaults) error {
	for _, name := range zeroOutOfRange {
		fl := fs.Lookup(name)
		if fl == nil || !fl.Changed || fl.Value.String() != "0" {
			continue
		}
		if bound := d.bound(name); bound != "" {
			return Usagef("--%s 0 is outside %s", name, bound)
		}
	}
	return nil
}

// sections are the config file's groups of settings: `retention: {runs:
// 30d}` is `retention-runs: 30d`.
var sections = []string{"retention"}

// flattenSections rewrites each section's keys as the flags they stand
// for; known tells a setting of the file's from a mistake. It returns each
// rewritten flag's key as the file writes it (retention.runs), by which a
// refusal of its value names it.
func flattenSections(vals map[string]any, configFile string, known func(string) bool) (map[string]string, error) {
	written := map[string]string{}
	for _, sec := range sections {
		v, ok := vals[sec]
		if !ok {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, Usagef("--config %s: %s must be a mapping of settings, e.g. %s: {runs: 30d, logs: 7d, log-bytes: 1GiB, notifications: 30d}", configFile, sec, sec)
		}
		delete(vals, sec)
		for k, x := range m {
			name := sec + "-" + k
			if !known(name) {
				// Named as written: the flag it would stand for was never
				// typed by anyone.
				return nil, Usagef("--config %s: unknown setting %s.%s; the %s section takes e.g. %s: {runs: 30d, logs: 7d, log-bytes: 1GiB, notifications: 30d}", configFile, sec, k, sec, sec)
			}
			if _, dup := vals[name]; dup {
				return nil, Usagef("--config %s: %s is set twice (as %s.%s and as %s)", configFile, name, sec, k, name)
			}
			vals[name] = x
			written[name] = sec + "." + k
		}
	}
	return written, nil
}

// CheckListenAddr checks the shape of a listen address flag before
// anything starts; binding it is the server's. An empty address is off.
// example shows a good value.
func CheckListenAddr(flag, addr, example string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		var n int
		if n, err = strconv.Atoi(port); err == nil && (n < 0 || n > 65535) {
			err = fmt.Errorf("port %d is outside 0–65535", n)
		}
	}
	if err != nil {
		return Usagef("%s %q must be host:port, e.g. %s: %v", flag, addr, example, err)
	}
	return nil
}

// fillFromFile applies the config file to flags neither the command line
// nor the environment set.
func fillFromFile(opts Options, fs *pflag.FlagSet, configFile string) error {
	return fillFromServeFile(opts, fs, configFile, func(k string) bool { return fs.Lookup(k) != nil })
}

// fillFromServeFile applies a serve config file to those of fs's flags
// neither the command line nor the environment set; serveSetting tells a
// setting of the file's from a mistake (another command reads the file
// serve reads, and takes only some of its settings); opts is the build,
// whose refusal of a retired setting names only what it has.
func fillFromServeFile(opts Options, fs *pflag.FlagSet, configFile string, serveSetting func(string) bool) error {
	var fileVals map[string]any
	var written map[string]string
	if configFile != "" {
		data, err := os.ReadFile(configFile)
		if err != nil {
			return Usagef("--config: %v", err)
		}
		if err := yaml.Unmarshal(data, &fileVals); err != nil {
			return Usagef("--config %s: %v", configFile, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		if written, err = flattenSections(fileVals, configFile, serveSetting); err != nil {
			return err
		}
		for _, setting := range passwordSettings {
			v, ok := fileVals[setting]
			if !ok {
				continue
			}
			info, err := os.Stat(configFile)
			if err != nil {
				return Usagef("--config: %v", err)
			}
			if err := refuseSharedPasswordFile(configFile, setting, fmt.Sprint(v), info.Mode()); err != nil {
				return err
			}
		}
		for k, v := range fileVals {
			if k == "db" {
				return Usagef("--config %s: %v", configFile, refuseRetiredDB(opts, fmt.Sprint(v)))
			}
			if k == "take-back" {
				return Usagef("--config %s: take-back is given on the command line only (`serve --take-back`): it takes back a handed-over database at one start, and a file would repeat it at every start", configFile)
			}
			if !serveSetting(k) || k == "config" {
				return Usagef("--config %s: unknown setting %q (settings are the serve flags, e.g. page-size)", configFile, k)
			}
		}
	}
	var err error
	fs.VisitAll(func(fl *pflag.Flag) {
		if err != nil || fl.Changed || fl.Name == "config" {
			return
		}
		if v, ok := fileVals[fl.Name]; ok {
			// A list setting may be a YAML sequence: each item is one use
			// of its flag, as on the command line.
			items, isList := v.([]any)
			if _, takesList := fl.Value.(*listFlag); isList && !takesList {
				err = Usagef("--config %s: %s takes one value, not a list", configFile, fl.Name)
				return
			} else if !isList {
				items = []any{v}
			}
			for _, item := range items {
				if e := fs.Set(fl.Name, fmt.Sprint(item)); e != nil {
					err = Usagef("--config %s: %s: %v", configFile, fl.Name, e)
					return
				}
			}
			err = fs.SetAnnotation(fl.Name, fileSet, []string{configFile, cmp.Or(written[fl.Name], fl.Name)})
		}
	})
	return err
}

// SplitList splits a comma-separated flag value, dropping empty items.
func SplitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
