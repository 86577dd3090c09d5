// Package workercli is the `worker` command: `ql worker` in the full binary
// and the whole of cmd/ql-worker. It links no PostgreSQL and no
// single-node code (internal/repocheck audits cmd/ql-worker's closure).
package workercli

import (
	"crypto/x509"
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/worker/agent"
)

// Command builds the `worker` command.
func Command() *cobra.Command {
	var (
		server, credFile, dataDir, scriptsDir, labels, secretsFile, caFile, runAs string
		concurrency                                                               int
		logFlags                                                                  cli.LogFlags
		run                                                                       func(*cobra.Command) error
	)
	var stopTimeout time.Duration
	c := &cobra.Command{
		Use:   "worker",
		Short: "Run a cluster worker: pull Runs from the replicas and execute their commands",
		Long: `Run a cluster worker until SIGINT, SIGTERM or SIGHUP.

The worker registers with the worker ingress of any replica (--server), pulls Runs when it has free
slots and runs their commands as local processes, reporting their output and their end. It never
holds database credentials: only the worker credential an admin created with 'ql workers create'.

On SIGINT/SIGTERM/SIGHUP it drains: it stops pulling, lets running commands finish for up to --stop-timeout,
then stops them (SIGTERM, the task's kill grace, SIGKILL), reports them and exits 0. A second signal
stops them at once, without waiting out the rest of --stop-timeout. Its journal in
--data-dir records what it started; after a crash nothing recorded as started is run again, and
the restarted worker reports it lost at once.

Every command it runs finds the worker's scripts folder (--scripts-dir) in $QL_SCRIPTS_DIR: a task
that pulls a repository or downloads a script keeps its copy there, on the host of the worker that
ran it, so each worker has its own.

It does not exit while no replica answers (replicas may start after it). It exits 4 when it is
drained ('ql workers resume NAME' returns it to service) or another process with its credential
replaced it, and 5 when its credential is refused: starting it again as it is cannot help.`,
		Example: `  ql worker --server https://replica.example:8081 --credential-file /etc/qinglong/worker.cred
  QL_SERVER=https://replica.example:8081 QL_CREDENTIAL_FILE=worker.cred ql worker --concurrency 8 --labels zone=eu`,
		Args: cobra.NoArgs,
		// A refusal of a setting says where a value given outside the
		// command line came from, as serve's do.
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cli.SayWhereSettingCame(cmd.Flags(), run(cmd))
		},
	}
	run = func(cmd *cobra.Command) error {
		logger, err := cli.NewLogger(cmd.ErrOrStderr(), logFlags.Level, logFlags.Format)
		if err != nil {
			return err
		}
		if server == "" {
			return cli.Usagef("--server is required: the worker ingress URL of a replica (or set %s)", cli.EnvName("server"))
		}
		if credFile == "" {
			return cli.Usagef("--credential-file is required: the file holding the credential 'ql workers create' printed (or set %s)", cli.EnvName("credential-file"))
		}
		if err := agent.CheckStopTimeout(stopTimeout, cmd.Flags().Lookup("stop-timeout").Value.String()); err != nil {
			return cli.Usagef("%v", err)
		}
		lbl, err := parseLabels(labels)
		if err != nil {
			return err
		}
		cred, err := agent.ReadCredential(credFile)
		if errors.Is(err, fs.ErrNotExist) {
			// A path that names nothing is a mistyped flag.
			return cli.Usagef("%v", err)
		}
		if err != nil {
			return err
		}
		var roots *x509.CertPool
		if caFile != "" {
			if roots, err = agent.LoadCAFile(caFile); err != nil {
				return cli.Usagef("%v", err)
			}
		}
		cfg := agent.Config{
			Server: server, Credential: cred, DataDir: dataDir, ScriptsDir: scriptsDir, Concurrency: concurrency, Labels: lbl, RunAs: task.ParseRunAs(runAs),
			RootCAs: roots, SecretsFile: secretsFile, SecretsCommand: secretsCommand(cmd), StopTimeout: stopTimeout,
			Version: cli.Version, Logger: logger,
		}
		if err := cfg.Validate(); err != nil {
			return cli.Usagef("%v", err)
		}
		// The first signal ends cmd.Context() (the drain); the worker
		// counts them all, so a second one stops its commands at once.
		signals := make(chan os.Signal, 2)
		signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		defer signal.Stop(signals)
		cfg.Signals = signals
		_, err = agent.Run(cmd.Context(), cfg)
		return err
	}
	fs := c.Flags()
	cli.ListVar(fs, &server, "server", "worker ingress URL of any replica (https://; http:// only to loopback); several are tried in turn")
	fs.StringVar(&credFile, "credential-file", "", "file holding the worker credential (mode 0600)")
	fs.StringVar(&dataDir, "data-dir", defaultDataDir(), "directory of the worker's journal and lock (one worker per directory)")
	fs.StringVar(&scriptsDir, "scripts-dir", "", "the folder of this worker's task scripts, created at start when missing (mode 0755); every command it runs finds it in $QL_SCRIPTS_DIR "+
		"(default: scripts in --data-dir, which only the worker's own user can reach; give a folder outside it when commands run as another user)")
	fs.IntVar(&concurrency, "concurrency", agent.DefaultConcurrency, "commands run at once (capped by the credential's max concurrency)")
	cli.ListVar(fs, &labels, "labels", "labels added to the credential's own, k=v (placement matches them)")
	fs.StringVar(&caFile, "ca-file", "", "PEM certificates of the authority that signed the replicas' worker ingress certificates (default: the system's)")
	fs.StringVar(&runAs, "run-as", "", "user[:group] that runs commands whose task sets no runAs (needs root; default: the worker's own user)")
	fs.StringVar(&secretsFile, "secrets-file", "", "this worker's secrets: a JSON object {\"name\": \"value\"} with mode 0600")
	cli.DurationVar(fs, &stopTimeout, "stop-timeout", agent.DefaultStopTimeout, "how long running commands may finish after SIGINT/SIGTERM/SIGHUP before they are stopped ("+
		validate.Duration(agent.MinStopTimeout)+"–"+validate.Duration(agent.MaxStopTimeout)+"; for no limit, drain the worker with 'ql workers drain NAME')")
	// JSON, as the worker logged before the flag existed.
	logFlags.Add(fs, cli.LogJSON, "")
	cli.BindEnv(fs, "server", "credential-file", "ca-file", "data-dir", "scripts-dir", "concurrency", "labels", "run-as", "secrets-file", "stop-timeout")
	return c
}

// secretsCommand is the secrets command of the binary running worker:
// ql-worker's own subcommand, or ql's beside `ql worker`, so a refusal
// names one the worker's host has. Empty for a worker command no binary
// holds, which the agent words as ql-worker's.
func secretsCommand(worker *cobra.Command) string {
	for _, c := range []*cobra.Command{worker, worker.Root()} {
		if s, _, err := c.Find([]string{"secrets"}); err == nil && s.Name() == "secrets" {
			return s.CommandPath()
		}
	}
	return ""
}

// defaultDataDir is a per-user state directory, or ./qinglong-worker when
// the user has no home.
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "qinglong-worker")
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "qinglong-worker")
	}
	return "qinglong-worker"
}

// parseLabels reads k=v,k2=v2.
func parseLabels(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" {
			return nil, cli.Usagef("--labels %q: each label is key=value, separated by commas", s)
		}
		if _, dup := out[k]; dup {
			return nil, cli.Usagef("--labels: %q is given twice", k)
		}
		out[k] = v
	}
	return out, nil
}
