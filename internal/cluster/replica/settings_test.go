package replica

import (
	"crypto/tls"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

func validFlags() cli.ServeFlags {
	return cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: "postgres://ql_runtime@db:5432/qinglong?sslmode=require", ReplicaID: "r1"}
}

// defaultSettings are a replica's settings when it is given only the
// required ones.
func defaultSettings(t *testing.T) settings {
	t.Helper()
	f := validFlags()
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSettingsDefaultsAreTheClusterProfiles(t *testing.T) {
	t.Parallel()
	s := defaultSettings(t)
	c := s.Coordinator
	if c.PageSize != 256 || c.Parallel != 4 || c.Lease != 30*time.Second || c.Cadence != time.Second || c.StopTimeout != 10*time.Second || c.Grace != 30*time.Second || s.HTTPAddr != "127.0.0.1:8080" {
		t.Fatalf("settings %+v", s)
	}
}

// What `serve --help` states as the cluster's defaults is what a replica
// given no setting runs with, and the bounds it states are the ones the
// settings are checked against.
func TestTheHelpsClusterDefaultsAreTheSettingsApplied(t *testing.T) {
	t.Parallel()
	s := defaultSettings(t)
	c := s.Coordinator
	// The log format is not a replica setting: serve builds the logger
	// from the format the help states, and a replica has logged JSON
	// since before the flag.
	applied := cli.ServeDefaults{PageSize: c.PageSize, Cadence: c.Cadence, Grace: c.Grace, StopTimeout: c.StopTimeout,
		Concurrency: cli.NoConcurrency, LogMaxBytes: s.Worker.Settings.LogCap, LogMaxBytesMin: MinLogCap, LogMaxBytesMax: MaxLogCap,
		Retention: s.Retention.Policy, HTTPAddr: s.HTTPAddr,
		LogFormat: cli.LogJSON, Lease: c.Lease, CommitParallel: c.Parallel, WorkerAddr: s.Worker.Addr, RunLease: s.Worker.Settings.RunLease}
	// The bounds are checked against the refusals by
	// TestEveryRefusalOfAClusterSettingStatesTheSameRange.
	stated := Profile().Defaults
	applied.Bounds = stated.Bounds
	if !reflect.DeepEqual(stated, applied) {
		t.Fatalf("help states %+v, a replica applies %+v", stated, applied)
	}
}

func TestWorkerIngressSettingsDefaultToLoopbackWithoutTLS(t *testing.T) {
	t.Parallel()
	s := defaultSettings(t)
	w := s.Worker
	if w.Addr != "127.0.0.1:8081" || w.TLS != nil || w.Settings.RunLease != 30*time.Second || w.Settings.LogCap != 16<<20 {
		t.Fatalf("worker settings %+v", w)
	}
}

func TestWorkerIngressOffLoopbackStartsWithTLS(t *testing.T) {
	t.Parallel()
	f := validFlags()
	f.WorkerAddr = "0.0.0.0:8443"
	f.WorkerTLSCert, f.WorkerTLSKey = tlstest.WriteCert(t)
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	if s.Worker.TLS == nil || len(s.Worker.TLS.Certificates) != 1 {
		t.Fatalf("no TLS configuration from the certificate files: %+v", s.Worker)
	}
}

// A certificate and key that do not go together (or swapped files) are
// refused with TLS's own reason, not an empty one.
func TestAWorkerCertificateThatCannotLoadSaysWhy(t *testing.T) {
	t.Parallel()
	f := validFlags()
	f.WorkerAddr = "0.0.0.0:8443"
	cert, key := tlstest.WriteCert(t)
	f.WorkerTLSCert, f.WorkerTLSKey = key, cert
	_, err := settingsFrom(&f)
	if err == nil || strings.Contains(err.Error(), "<nil>") || !strings.Contains(err.Error(), "tls:") {
		t.Fatalf("swapped certificate and key: %v, want TLS's reason", err)
	}
}

func TestAPIOffLoopbackNeedsTLSOrAnExplicitInsecureHTTP(t *testing.T) {
	t.Parallel()
	f := validFlags()
	f.HTTPAddr = "0.0.0.0:8080"
	f.TLSCert, f.TLSKey = tlstest.WriteCert(t)
	s, err := settingsFrom(&f)
	if err != nil || s.HTTPTLS == nil || len(s.HTTPTLS.Certificates) != 1 {
		t.Fatalf("with a certificate: %+v %v", s.HTTPTLS, err)
	}
	f = validFlags()
	f.HTTPAddr, f.InsecureHTTP, f.AllowedHosts = "10.1.2.3:8080", true, "ql.example.com, ql2.example.com"
	if s, err = settingsFrom(&f); err != nil || s.HTTPTLS != nil {
		t.Fatalf("with --insecure-http: %+v %v", s.HTTPTLS, err)
	}
	for _, h := range []string{"localhost", "10.1.2.3", "ql.example.com", "ql2.example.com"} {
		if !slices.Contains(s.AllowedHosts, h) {
			t.Errorf("allowed hosts %v lack %s", s.AllowedHosts, h)
		}
	}
}

func TestSettingsRejectBadValuesNamingTheSettingAndWhatIsAllowed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		mutate  func(*cli.ServeFlags)
		mention []string
	}{
		{"page size above cap", func(f *cli.ServeFlags) { f.PageSize = 257 }, []string{"--page-size", "1–256"}},
		{"negative page size", func(f *cli.ServeFlags) { f.PageSize = -1 }, []string{"--page-size", "1–256"}},
		{"commit parallelism above cap", func(f *cli.ServeFlags) { f.CommitParallel = 17 }, []string{"--commit-parallel", "1–16"}},
		{"cadence too short", func(f *cli.ServeFlags) { f.Cadence = 100 * time.Millisecond }, []string{"--cadence", "250ms–1h"}},
		{"lease too long", func(f *cli.ServeFlags) { f.Lease = 2 * time.Minute }, []string{"--lease", "1s–1m"}},
		{"lease sub-millisecond", func(f *cli.ServeFlags) { f.Lease = 1500*time.Millisecond + 1 }, []string{"--lease", "milliseconds"}},
		{"stop timeout too long", func(f *cli.ServeFlags) { f.StopTimeout = time.Minute }, []string{"--stop-timeout", "100ms–30s"}},
		{"grace negative", func(f *cli.ServeFlags) { f.Grace = -time.Second }, []string{"--misfire-grace", "0s–24h"}},
		{"claim ahead over a quarter of the lease", func(f *cli.ServeFlags) { f.Lease, f.ClaimAhead = 4*time.Second, 1500*time.Millisecond },
			[]string{"--claim-ahead", "0s–1s", "a quarter of the lease"}},
		{"replica id shape", func(f *cli.ServeFlags) { f.ReplicaID = "no spaces" }, []string{"--replica-id", "1–128 characters"}},
		{"role prefix shape", func(f *cli.ServeFlags) { f.RolePrefix = "Bad-Prefix" }, []string{"--role-prefix"}},
		{"http addr", func(f *cli.ServeFlags) { f.HTTPAddr = "8080" }, []string{"--http-addr", "host:port"}},
		{"http port", func(f *cli.ServeFlags) { f.HTTPAddr = "127.0.0.1:70000" }, []string{"--http-addr", "0–65535"}},
		{"api off loopback without TLS", func(f *cli.ServeFlags) { f.HTTPAddr = "0.0.0.0:8080" },
			[]string{"--http-addr 0.0.0.0:8080 is not a loopback address", "--tls-cert", "--insecure-http"}},
		{"allowed host with a port", func(f *cli.ServeFlags) { f.AllowedHosts = "ql.example.com:8080" }, []string{"--allowed-hosts", "write ql.example.com"}},
		{"api cert without key", func(f *cli.ServeFlags) { f.TLSKey = "key.pem" }, []string{"--tls-cert and --tls-key go together"}},
		{"no database", func(f *cli.ServeFlags) { f.DatabaseURL = "" }, []string{"--database-url is required", "QL_DATABASE_URL"}},
		{"sqlite path", func(f *cli.ServeFlags) { f.DatabaseURL = "/var/lib/ql.db" }, []string{"--database-url", "postgres://"}},
		{"bad sslmode", func(f *cli.ServeFlags) { f.DatabaseURL = "postgres://u@h/d?sslmode=maybe" }, []string{"sslmode", "verify-full"}},
		{"bad connect_timeout", func(f *cli.ServeFlags) { f.DatabaseURL = "postgres://u@h/d?connect_timeout=soon" },
			[]string{"--database-url", "connect_timeout", "whole number of seconds"}},
		{"bad escape in the password", func(f *cli.ServeFlags) { f.DatabaseURL = "postgres://u:pw%zz@h/d" }, []string{"--database-url", "the password", "%25"}},
		{"missing root cert", func(f *cli.ServeFlags) {
			f.DatabaseURL = "postgres://u@h/d?sslmode=verify-full&sslrootcert=" + url.QueryEscape(filepath.Join(t.TempDir(), "none.pem"))
		}, []string{"sslrootcert", "none.pem"}},
		{"single-node data dir", func(f *cli.ServeFlags) { f.DataDir = "/var/lib/ql" }, []string{"--data-dir", "single-node"}},
		{"single-node example", func(f *cli.ServeFlags) { f.Example = true }, []string{"--example"}},
		{"single-node concurrency", func(f *cli.ServeFlags) { f.Concurrency = 4 }, []string{"--concurrency"}},
		{"single-node run-as", func(f *cli.ServeFlags) { f.RunAs = "nobody" }, []string{"--run-as", "single-node"}},
		{"worker addr shape", func(f *cli.ServeFlags) { f.WorkerAddr = "8081" }, []string{"--worker-addr", "host:port"}},
		{"worker addr off loopback without TLS", func(f *cli.ServeFlags) { f.WorkerAddr = "0.0.0.0:8081" },
			[]string{"--worker-addr 0.0.0.0:8081 is not a loopback address", "--worker-tls-cert", "--worker-tls-key"}},
		{"worker addr on every interface without TLS", func(f *cli.ServeFlags) { f.WorkerAddr = ":8081" }, []string{"not a loopback address"}},
		{"worker cert without key", func(f *cli.ServeFlags) { f.WorkerTLSCert = "cert.pem" }, []string{"--worker-tls-cert and --worker-tls-key go together"}},
		{"worker cert unreadable", func(f *cli.ServeFlags) { f.WorkerTLSCert, f.WorkerTLSKey = "/nonexistent/c.pem", "/nonexistent/k.pem" },
			[]string{"--worker-tls-cert /nonexistent/c.pem", "cannot be loaded"}},
		{"run lease too short", func(f *cli.ServeFlags) { f.RunLease = 2 * time.Second }, []string{"--run-lease", "3s–10m"}},
		{"run lease too long", func(f *cli.ServeFlags) { f.RunLease = 11 * time.Minute }, []string{"--run-lease", "3s–10m"}},
		{"cluster log cap too small", func(f *cli.ServeFlags) { f.LogMaxBytes = 100 }, []string{"--log-max-bytes 100 B is outside 4 KiB–1 GiB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := validFlags()
			c.mutate(&f)
			_, err := settingsFrom(&f)
			var ue *cli.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error (exit 2)", err)
			}
			for _, m := range c.mention {
				if !strings.Contains(err.Error(), m) {
					t.Fatalf("%q does not mention %q", err, m)
				}
			}
		})
	}
}

func TestSettingsNeverEchoTheDatabasePassword(t *testing.T) {
	t.Parallel()
	f := validFlags()
	f.DatabaseURL = "postgres://ql_runtime:s3cret-pw@db/ql?sslmode=nope"
	_, err := settingsFrom(&f)
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("error %v", err)
	}
}

func TestRuntimeURLNamesTheReplicaAndKeepsTLSSettings(t *testing.T) {
	t.Parallel()
	got, err := runtimeURL("postgres://ql_runtime@db/ql?sslmode=verify-full&sslrootcert=system", "r-7")
	if err != nil {
		t.Fatal(err)
	}
	q := mustQuery(t, got)
	if q.Get("application_name") != "qinglong:r-7" || q.Get("sslmode") != "verify-full" || q.Get("sslrootcert") != "system" {
		t.Fatalf("url %s", got)
	}
	kept, err := runtimeURL("postgres://u@h/d?application_name=mine", "r-7")
	if err != nil || mustQuery(t, kept).Get("application_name") != "mine" {
		t.Fatalf("an explicit application_name was overridden: %s %v", kept, err)
	}
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

func TestDefaultReplicaIDIsHostAndPidInTheOwnerShape(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"node-1.example.com":     "node-1.example.com-42",
		"weird host/name":        "weird-host-name-42",
		"-leading":               "r-leading-42",
		"":                       "replica-42",
		strings.Repeat("h", 200): strings.Repeat("h", 125) + "-42",
	} {
		got := defaultReplicaID(func() (string, error) { return host, nil }, 42)
		if got != want || !scheduler.OwnerPattern.MatchString(got) {
			t.Errorf("host %q → %q, want %q matching the owner pattern", host, got, want)
		}
	}
	if got := defaultReplicaID(func() (string, error) { return "", errors.New("no uts") }, 7); got != "replica-7" {
		t.Errorf("without a host name: %q", got)
	}
}

func TestAdmissionFollowsTheLiveActivationAndDrainingWins(t *testing.T) {
	t.Parallel()
	a := &admission{}
	first := &activation{latch: availability.New()}
	second := &activation{latch: availability.New()}
	steps := []struct {
		do     func()
		ready  bool
		reason string
	}{
		{func() {}, false, ReasonStarting},
		{func() { a.open(first) }, true, ""},
		// The loss shows at once, before the supervisor reacts.
		{func() { first.latch.Observe(schedule.ErrUnavailable) }, false, ReasonDatabaseUnavailable},
		{a.withdraw, false, ReasonDatabaseUnavailable},
		{func() { a.open(second) }, true, ""},
		{func() { a.close() }, false, ReasonDraining},
		{func() { a.open(first) }, false, ReasonDraining},
	}
	for i, s := range steps {
		s.do()
		if ok, reason := a.ready(); ok != s.ready || reason != s.reason {
			t.Fatalf("step %d: ready %v %q, want %v %q", i, ok, reason, s.ready, s.reason)
		}
	}
}

func TestCommitParallelReachesTheCoordinator(t *testing.T) {
	t.Parallel()
	f := validFlags()
	f.CommitParallel = 8
	s, err := settingsFrom(&f)
	if err != nil || s.Coordinator.Parallel != 8 {
		t.Fatalf("--commit-parallel 8 gave parallel %d, %v", s.Coordinator.Parallel, err)
	}
}

// A private key other users may read is refused for both listeners,
// naming the flag and the chmod; a group-readable one is accepted.
func TestAKeyOtherUsersMayReadIsRefused(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o644, 0o666, 0o604} {
		f := validFlags()
		f.WorkerAddr, f.HTTPAddr = "0.0.0.0:8443", "0.0.0.0:8080"
		f.WorkerTLSCert, f.WorkerTLSKey = tlstest.WriteCert(t)
		f.TLSCert, f.TLSKey = tlstest.WriteCert(t)
		for _, c := range []struct {
			flag, key string
		}{{"--worker-tls-key", f.WorkerTLSKey}, {"--tls-key", f.TLSKey}} {
			if err := os.Chmod(c.key, mode); err != nil {
				t.Fatal(err)
			}
			_, err := settingsFrom(&f)
			if err == nil || !strings.Contains(err.Error(), c.flag+" "+c.key+" is readable or writable by other users") || !strings.Contains(err.Error(), "chmod 600 "+c.key) {
				t.Fatalf("%s at mode %04o: %v; want it refused naming the flag and chmod 600", c.flag, mode, err)
			}
			if err := os.Chmod(c.key, 0o640); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := settingsFrom(&f); err != nil {
			t.Fatalf("keys at mode 0640: %v; want them accepted", err)
		}
	}
}

// A --secrets-file naming no file is a mistake (a path mistyped, a copy
// that did not happen), refused at start naming the file and how to make
// it, not found out notification by notification.
func TestAReplicaGivenASecretsFileThatDoesNotExistRefusesToStart(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "secrets.json")
	f := validFlags()
	f.SecretsFile = missing
	_, err := settingsFrom(&f)
	var usage *cli.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "ql secrets set NAME --secrets-file") {
		t.Fatalf("settingsFrom with a missing --secrets-file: %v, want a usage error naming the file and `ql secrets set`", err)
	}
	if err := os.WriteFile(missing, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := settingsFrom(&f); err != nil {
		t.Fatalf("settingsFrom with the file present: %v", err)
	}
}

// The worker ingress speaks TLS 1.2 only with forward-secret AEAD suites,
// as the API listener does: a CBC-SHA1 suite alone is refused.
func TestTheWorkerIngressOffersOnlyForwardSecretAEADSuitesInTLS12(t *testing.T) {
	t.Parallel()
	f := validFlags()
	f.WorkerAddr = "0.0.0.0:8443"
	f.WorkerTLSCert, f.WorkerTLSKey = tlstest.WriteCert(t)
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlstest.Handshake(t, s.Worker.TLS, &tls.Config{CipherSuites: []uint16{tlstest.CBCSuite}}); err == nil {
		t.Fatal("a worker offering only ECDHE-ECDSA-AES128-SHA (CBC) was served; want refused")
	}
	if err := tlstest.Handshake(t, s.Worker.TLS, &tls.Config{CipherSuites: []uint16{tlstest.GCMSuite}}); err != nil {
		t.Fatalf("a worker offering ECDHE-ECDSA-AES128-GCM-SHA256 was refused: %v", err)
	}
}
