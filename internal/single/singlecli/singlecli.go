// Package singlecli wires the single-node profiles (standalone, edge) into
// the shared `ql` command tree: the SQLite opener the read and apply
// commands use, and the serve functions. Both the full and the edge binary
// use it; it imports nothing of the cluster profile.
package singlecli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/examples"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/single/executor"
	"github.com/qinglong/qinglong/internal/single/server"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// Options are the cli.Options of a binary with only the single-node
// profiles (the edge binary). The full binary adds PostgreSQL and cluster.
func Options(binary string) cli.Options {
	return cli.Options{
		Binary:             binary,
		OpenSQLite:         OpenSQLite,
		OpenSQLiteReadOnly: OpenSQLiteReadOnly,
		SecretsFile:        func(dbPath string) string { return server.LayoutOfDB(dbPath).Secrets },
		Backup: func(ctx context.Context, dbPath, dest string, progress io.Writer) error {
			_, err := server.Backup(ctx, dbPath, dest, progress)
			return err
		},
		BackupArchive: server.WriteBackupArchive,
		CheckSQLite:   sqlitestore.CheckFile,
		Vacuum:        vacuum,
		HandOver:      handOver,
		Profiles: map[string]cli.Profile{
			cli.ProfileStandalone: Profile(server.Standalone),
			cli.ProfileEdge:       Profile(server.Edge),
		},
	}
}

// Profile is the cli.Profile of a single-node profile: Serve, and the
// defaults server.Config applies.
func Profile(p server.Profile) cli.Profile {
	c := server.Config{Profile: p}.WithDefaults()
	return cli.Profile{Serve: Serve(p), Defaults: cli.ServeDefaults{
		PageSize: c.PageSize, Cadence: c.Cadence, Grace: c.Grace, StopTimeout: c.StopTimeout,
		Concurrency: server.DefaultConcurrency(p), MaxConcurrency: executor.MaxConcurrency,
		LogMaxBytes: c.LogCapBytes, LogMaxBytesMin: executor.MinLogCapBytes, LogMaxBytesMax: executor.MaxLogCapBytes, Retention: c.Retention.Policy,
		LogFormat: cli.LogText, Bounds: server.Bounds, ClockWait: c.ClockWait,
	}}
}

// vacuum is `db vacuum` keeping the file's page size.
func vacuum(ctx context.Context, dbPath string, progress io.Writer) (int64, int64, error) {
	sum, err := server.Vacuum(ctx, dbPath, server.Standalone, progress)
	return sum.Before, sum.After, err
}

// handOver is `export --with-state`'s hold on the data directory it hands
// over (server.HandOver).
func handOver(ctx context.Context, dbPath, actor string) (func() error, error) {
	h, err := server.HandOver(ctx, dbPath, server.Standalone, actor)
	if err != nil {
		return nil, err
	}
	return h.Release, nil
}

// EdgeVacuum is the edge binary's `db vacuum`: its compacted copy takes
// the page size an edge server gives a database it makes, as
// OpenEdgeSQLite's do.
func EdgeVacuum(ctx context.Context, dbPath string, progress io.Writer) (int64, int64, error) {
	sum, err := server.Vacuum(ctx, dbPath, server.Edge, progress)
	return sum.Before, sum.After, err
}

// OpenSQLite is the cli.Opener of the embedded database file.
func OpenSQLite(ctx context.Context, dsn string) (*cli.Backend, error) {
	return openSQLite(ctx, dsn, server.Standalone)
}

// OpenEdgeSQLite is the edge binary's OpenSQLite: a database one of its
// commands creates (a `ql-edge apply` before the first `serve`) has the
// page size an edge server would have given it.
func OpenEdgeSQLite(ctx context.Context, dsn string) (*cli.Backend, error) {
	return openSQLite(ctx, dsn, server.Edge)
}

func openSQLite(ctx context.Context, dsn string, p server.Profile) (*cli.Backend, error) {
	b, err := server.OpenBackendMaking(ctx, dsn, p, func(msg string) { cli.Say(ctx, msg) })
	if err != nil {
		return nil, err
	}
	return &cli.Backend{Catalog: b.Catalog, Runs: localRuns{Reader: b.Store, layout: b.Layout, handedOver: b.Store.HandedOver}, LastRuns: b.Store, Triggers: b.Store, Definitions: b.Store, ReadLog: b.ReadLog, CancelRun: b.Store.CancelRun,
		Pause: b.Store, Adopt: b.Store, ProjectPause: b.Store, ProjectPauses: b.Store, ProjectDelete: b.Store.ProjectDeleter(b.Layout.Logs, b.Layout.Secrets), Detail: b.Store, Manual: b.Store, Tokens: b.Store, Users: b.Store, Notifications: b.Store, Audit: b.Store, Record: b.Store,
		Retention: b.Store.Retention(b.Layout.Logs), RetentionDefaults: server.RetentionDefaults(server.Standalone), RetentionOptions: sqlitestore.RetentionOptions,
		TryChannel:     cli.LocalChannelTrials(b.Store, process.Secrets{Path: b.Layout.Secrets}.Resolve, b.Store),
		Dependencies:   &deps.Service{Store: b.Store, Runs: b.Store},
		MissingSecrets: process.Secrets{Path: b.Layout.Secrets}.Missing, Unattended: unattended(b.Layout, b.Store), HandedOver: handedOver(b.Layout, b.Store),
		Migrated: b.Migrated, HeldNone: b.HeldNone, RefuseClockBehind: b.RefuseClockBehind, Close: b.Close}, nil
}

// unattended tells whether a server runs on the data directory: every
// server holds the directory's lock while it runs, and only a server
// starts queued Runs. It asks as localRuns does, so the two never
// disagree. With none, it reads whether the database was handed over:
// then no server may start on it before a take-back.
func unattended(l server.Layout, st *sqlitestore.Store) func(context.Context, string) (cli.Unattended, error) {
	return func(ctx context.Context, _ string) (cli.Unattended, error) {
		serving, err := server.Serving(l)
		if err != nil {
			return cli.Unattended{}, fmt.Errorf("look for a server's lock on %s: %w", l.Lock, err)
		}
		if serving {
			return cli.Unattended{}, nil
		}
		u := cli.Unattended{NoServer: true, DataDir: filepath.Dir(l.DB)}
		_, handed, err := st.HandedOver(ctx)
		if err != nil || !handed {
			return u, err
		}
		u.HandedOver = true
		u.Queued, _, err = st.Queued(ctx)
		return u, err
	}
}

// handedOver reads the database's handover mark, naming the data
// directory it is in now (a copy's own, not the one the export ran on):
// that is where a take-back runs.
func handedOver(l server.Layout, st *sqlitestore.Store) func(context.Context) (cli.Handover, bool, error) {
	return func(ctx context.Context) (cli.Handover, bool, error) {
		h, ok, err := st.HandedOver(ctx)
		return cli.Handover{AtMs: h.AtMs, Actor: h.Actor, DataDir: filepath.Dir(l.DB)}, ok, err
	}
}

// OpenSQLiteReadOnly is the cli.Opener of the read commands: the file is
// opened read-only and not migrated, so listing works for an operator who
// may read the database but not write it, and never changes it.
func OpenSQLiteReadOnly(ctx context.Context, dsn string) (*cli.Backend, error) {
	nowMs := func() int64 { return time.Now().UnixMilli() }
	st, err := sqlitestore.OpenReadOnly(ctx, sqlitestore.Config{Path: dsn, NowMs: nowMs})
	if err != nil {
		return nil, err
	}
	if err := st.ReadyToRead(ctx); err != nil {
		_ = st.Close()
		return nil, err
	}
	b := &server.Backend{Store: st, Layout: server.LayoutOfDB(dsn)}
	// The catalog serves `ql apply --dry-run`'s reads; a write through it
	// fails on the read-only connection.
	cat := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: nowMs}
	// Unattended only looks for a server's lock: `runs logs -f` says when
	// none is there to start or finish the Run it follows.
	return &cli.Backend{Catalog: cat, Runs: localRuns{Reader: st, layout: b.Layout, handedOver: st.HandedOver}, LastRuns: st, Triggers: st, Definitions: st, ReadLog: b.ReadLog, Detail: st, ProjectPauses: st, Notifications: st, Audit: st,
		Dependencies:   &deps.Service{Store: st, Runs: st},
		MissingSecrets: process.Secrets{Path: b.Layout.Secrets}.Missing, Unattended: unattended(b.Layout, st), Migrated: b.Migrated, HeldNone: b.HeldNone, Close: b.Close}, nil
}

// Serve is the cli.ServeFunc of a single-node profile.
func Serve(p server.Profile) cli.ServeFunc {
	return func(ctx context.Context, cmd *cobra.Command, f *cli.ServeFlags) error {
		for _, c := range []struct {
			names []string
			why   string
		}{
			{[]string{"database-url", "replica-id", "role-prefix", "lease", "commit-parallel"}, "keeps its database in --data-dir and commits each page in one transaction"},
			{[]string{"secrets-file"}, "reads qinglong-secrets.json in --data-dir"},
			{[]string{"worker-addr", "worker-tls-cert", "worker-tls-key", "run-lease"}, "runs commands itself and has no worker ingress"},
		} {
			if given := cli.GivenAs(cmd.Flags(), c.names...); len(given) > 0 {
				what := "a cluster setting"
				if len(given) > 1 {
					what = "cluster settings"
				}
				return cli.Usagef("%s: %s, and the %s profile %s; give --profile cluster to run a cluster replica, or leave out every cluster setting (--%s)",
					strings.Join(given, ", "), what, p, c.why, strings.Join(c.names, ", --"))
			}
		}
		policy, err := f.Retention.Resolve(server.RetentionDefaults(p))
		if err != nil {
			return &cli.UsageError{Err: err}
		}
		cfg := server.Config{
			Retention:         server.RetentionConfig{Set: true, Policy: policy, Options: sqlitestore.RetentionOptions},
			Profile:           p,
			DataDir:           f.DataDir,
			ScriptsDir:        f.ScriptsDir,
			PageSize:          f.PageSize,
			Cadence:           f.Cadence,
			Grace:             f.Grace,
			GraceSet:          f.GraceSet,
			ClockWait:         f.ClockWait,
			ClockWaitSet:      f.ClockWaitSet,
			AfterRestore:      server.AfterRestore(f.AfterRestore),
			IntegrityCheck:    server.IntegrityCheck(f.IntegrityCheck),
			StopTimeout:       f.StopTimeout,
			StopSignals:       cli.DrainSignals(),
			Concurrency:       f.Concurrency,
			LogCapBytes:       f.LogMaxBytes,
			HTTPAddr:          f.HTTPAddr,
			TLS:               httpapi.TLSSettings{Cert: f.TLSCert, Key: f.TLSKey, Insecure: f.InsecureHTTP},
			AllowedHosts:      cli.SplitList(f.AllowedHosts),
			TrustedProxies:    cli.SplitList(f.TrustedProxies),
			RunAs:             task.ParseRunAs(f.RunAs),
			NotifyBackoff:     f.NotifyBackoff,
			NotifyMaxAttempts: f.NotifyMaxAttempts,
			ConsoleURL:        f.ConsoleURL,
			Logger:            f.Logger,
			MetricsAddr:       f.MetricsAddr,
			MetricsPerTrigger: f.MetricsPerTrigger,
			TakeBack:          f.TakeBack,
			Binary:            cmd.Root().Name(),
			Version:           f.Version,
			Commit:            f.Commit,
		}
		if err := cfg.WithDefaults().Validate(); err != nil {
			return &cli.UsageError{Err: err}
		}
		if f.HTTPAddr == "" && (f.TLSCert != "" || f.TLSKey != "" || f.InsecureHTTP || f.AllowedHosts != "" || f.TrustedProxies != "") {
			return cli.Usagef("--tls-cert, --tls-key, --insecure-http, --allowed-hosts and --trusted-proxies set up the API listener; give --http-addr too")
		}
		if f.HTTPAddr == "" && f.ConsoleURL != "" {
			return cli.Usagef("--console-url links notifications to the web console, which this server serves only with --http-addr (off now); give --http-addr too, or leave --console-url out")
		}
		if _, err := httpapi.ParseTrustedProxies(cfg.TrustedProxies); err != nil {
			return &cli.UsageError{Err: err}
		}
		if err := httpapi.CheckAllowedHosts(cfg.AllowedHosts); err != nil {
			return &cli.UsageError{Err: err}
		}
		if err := cli.CheckListenAddr("--http-addr", f.HTTPAddr, httpapi.DefaultAddr+" (loopback only) or 0.0.0.0:8080"); err != nil {
			return err
		}
		if f.HTTPAddr != "" {
			if _, err := httpapi.LoadTLS(f.HTTPAddr, cfg.TLS); err != nil {
				return &cli.UsageError{Err: err}
			}
		}
		if err := cli.CheckDataDir(cfg.WithDefaults().DataDir, true); err != nil {
			return err
		}
		if f.Example {
			db := server.LayoutOf(cfg.WithDefaults().DataDir).DB
			cfg.BeforeOpen = func(ctx context.Context) error { return applyExample(ctx, cmd, db, cfg.Profile) }
		}
		return server.Serve(ctx, cfg)
	}
}

// applyExample applies the embedded sample to a database whose sample
// project does not exist yet, making a new one as profile p's server
// would. A project already there is left as it is: the quick start's
// command is run again after the user changed the sample (disabled a
// trigger, edited a script), and applying it would undo those changes
// without being asked to; it says so, and how to reset the project.
func applyExample(ctx context.Context, cmd *cobra.Command, dbPath string, p server.Profile) error {
	doc, err := apply.Parse(examples.SampleFile, examples.Sample)
	if err != nil {
		return err
	}
	b, err := server.OpenBackendMaking(ctx, dbPath, p, func(msg string) { fmt.Fprintln(cmd.ErrOrStderr(), msg) })
	if err != nil {
		return err
	}
	defer b.Close()
	_, err = b.Store.ProjectByName(ctx, doc.Project)
	if err == nil {
		flag := ""
		if dir := filepath.Dir(dbPath); dir != "." {
			flag = " --data-dir " + shellquote.Quote(dir)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "project %s: already there, left as it is (a trigger you disabled stays disabled); "+
			"`%s apply -f %s%s` resets it to the sample\n", doc.Project, cmd.Root().Name(), examples.SampleFile, flag)
		return nil
	}
	if qlerror.ReasonOf(err) != catalog.RefusalProjectMissing {
		return err
	}
	results, err := apply.Apply(ctx, b.Catalog, doc, ids.New)
	for _, r := range results {
		fmt.Fprintln(cmd.OutOrStdout(), r)
	}
	return err
}
