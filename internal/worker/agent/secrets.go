package agent

import (
	"fmt"
	"path/filepath"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// secretsOf is the worker's secrets file. A secret it lacks fails the
// attempt with the command that sets it, read in the Run's log on any
// host: so the file is named absolute, as the worker's working directory
// is not the reader's.
func secretsOf(cfg Config) process.Secrets {
	path := cfg.SecretsFile
	if path == "" {
		return process.Secrets{}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return process.Secrets{Path: path, SetBy: func(name string) string {
		return cfg.SecretsCommand + " set " + shellquote.Quote(name) + " --secrets-file " + shellquote.Quote(path)
	}}
}

// secrets is the worker's secrets file as an attempt resolves it: a
// secret it lacks is to be set on this worker's host, which the reader of
// the Run's log knows only by the worker's name.
func (a *attempt) secrets() process.Secrets {
	s := a.w.secrets
	s.SetOn = "on the host of worker " + a.w.workerName()
	return s
}

// noSecretsFile refuses secret name to a worker started without
// --secrets-file: the file is to be written with the worker's secrets
// command, then named to the worker, which takes --secrets-file only as
// it starts.
func (a *attempt) noSecretsFile(name string) error {
	return fmt.Errorf("the task needs secret %q, but this worker was started without --secrets-file; on the host of worker %s, set it with `%s set %s --secrets-file FILE` and start the worker again with --secrets-file FILE",
		name, a.w.workerName(), a.w.cfg.SecretsCommand, shellquote.Quote(name))
}
