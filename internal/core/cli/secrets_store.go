package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// secretsStore is where a secrets command lists and edits: a secrets file
// on this machine, or a server's over its API.
type secretsStore interface {
	list(ctx context.Context) (apply.SecretListing, error)
	set(ctx context.Context, name, value string) (replaced bool, err error)
	remove(ctx context.Context, name string) (existed bool, err error)
}

// localSecrets is a secrets file on this machine, with the definitions
// that say which tasks and channels use its names (nil when none is at
// hand; unknown then says why, for the listing's line) and, for the data
// directory's own file, the audit trail its changes are recorded in (nil
// for any other file, or a data directory without a database yet).
type localSecrets struct {
	file    process.Secrets
	defs    catalog.DefinitionsReader
	unknown string
	record  audit.Appender
}

func (l localSecrets) list(ctx context.Context) (apply.SecretListing, error) {
	return apply.ListSecrets(ctx, l.defs, l.file)
}

// set stores the value, then records who set it: a record that cannot
// be written leaves the value stored and says so (audit.RecordDone).
func (l localSecrets) set(ctx context.Context, name, value string) (bool, error) {
	replaced, err := l.file.Set(name, value)
	if err != nil || l.record == nil {
		return replaced, err
	}
	return replaced, audit.RecordDone(ctx, l.record, audit.Secret(audit.SecretSet, actor(), name, replaced), fmt.Sprintf("secret %s was set in %s", name, l.file.Path))
}

// remove deletes the secret, then records who deleted it, as set does.
func (l localSecrets) remove(ctx context.Context, name string) (bool, error) {
	existed, err := l.file.Delete(name)
	if err != nil || !existed || l.record == nil {
		return existed, err
	}
	return true, audit.RecordDone(ctx, l.record, audit.Secret(audit.SecretDeleted, actor(), name, false), fmt.Sprintf("secret %s was deleted from %s", name, l.file.Path))
}

func (c *apiClient) list(ctx context.Context) (apply.SecretListing, error) {
	var l apply.SecretListing
	return l, c.get(ctx, "/api/v1/secrets", nil, &l)
}

func (c *apiClient) set(ctx context.Context, name, value string) (bool, error) {
	b, err := json.Marshal(struct {
		Value string `json:"value"`
	}{value})
	if err != nil {
		return false, err
	}
	var out struct {
		Replaced bool `json:"replaced"`
	}
	err = c.do(ctx, http.MethodPut, "/api/v1/secrets/"+url.PathEscape(name), nil, "application/json", bytes.NewReader(b), &out)
	return out.Replaced, err
}

func (c *apiClient) remove(ctx context.Context, name string) (bool, error) {
	var out struct{}
	err := c.do(ctx, http.MethodDelete, "/api/v1/secrets/"+url.PathEscape(name), nil, "", nil, &out)
	if qlerror.CodeOf(err) == qlerror.NotFound {
		return false, nil
	}
	return err == nil, err
}

// secretsFlags say where a secrets command works: the data directory's
// file (--data-dir), a file named alone (--secrets-file: a worker's), or
// a server's (--api-url).
type secretsFlags struct {
	db   dbFlags
	file string
}

// addSecretsFlags registers them; write for a command that changes the
// file, whose change on the data directory's file is recorded in its
// database, as every write of it is (--clock-behind-ok).
func addSecretsFlags(c *cobra.Command, f *secretsFlags, opts Options, write bool) {
	if opts.secretsFileOnly {
		c.Flags().StringVar(&f.file, "secrets-file", "", "the worker's secrets file (its --secrets-file)")
		BindEnv(c.Flags(), "secrets-file")
		return
	}
	if write {
		addDBWriteFlags(c, &f.db, opts.OpenPostgres != nil)
	} else {
		addDBFlags(c, &f.db, opts.OpenPostgres != nil)
	}
	addServerFlag(c, &f.db)
	c.Flags().StringVar(&f.file, "secrets-file", "", "the secrets file to work on instead of the data directory's"+
		opts.clusterOnly(" (a worker's --secrets-file)")+"; with --data-dir"+opts.clusterOnly(" or --database-url (or $QL_DATABASE_URL)")+" too, the uses are read from that database")
	BindEnv(c.Flags(), "secrets-file")
}

// open is the store the flags name, and a function that closes it; write
// opens the database of the data directory's own file for writing, to
// record who changes it.
func (f *secretsFlags) open(ctx context.Context, opts Options, write bool) (secretsStore, func(), error) {
	if opts.secretsFileOnly {
		if f.file == "" {
			return nil, nil, Usagef("--secrets-file is required: the file this worker reads its secrets from (its --secrets-file, or set %s)", EnvName("secrets-file"))
		}
		return localSecrets{file: process.Secrets{Path: f.file}, unknown: "which tasks use these names is known where the definitions are: " +
			"run `ql secrets list --database-url URL --secrets-file FILE` on a host with ql"}, func() {}, nil
	}
	flags := f.db.cmd.Flags()
	fileArg := onCommandLine(flags.Lookup("secrets-file"))
	dbArg := onCommandLine(flags.Lookup("data-dir"))
	if fl := urlFlagOf(flags); fl != nil && onCommandLine(fl) {
		dbArg = true
	}
	// The command line wins: a file in the environment (a worker's unit)
	// does not replace the data directory named on it.
	byFile := fileArg || (f.file != "" && !dbArg && !onCommandLine(flags.Lookup("api-url")))
	if f.db.server != "" {
		if fileArg {
			return nil, nil, Usagef("give --api-url (the server's own secrets file) or --secrets-file (a file on this machine), not both")
		}
		c, err := remoteClient(&f.db)
		return c, func() {}, err
	}
	// A PostgreSQL URL holding a password can be given only in
	// $QL_DATABASE_URL, so there it names the database the uses are read
	// from as --database-url does; the file is still the one named.
	urlInEnv := f.db.url != "" && urlFlagOf(flags) != nil
	if byFile && !dbArg && !urlInEnv {
		return localSecrets{file: process.Secrets{Path: f.file}, unknown: "which tasks and channels use these names is not known without --data-dir" +
			opts.clusterOnly(" (or --database-url, or $QL_DATABASE_URL)") + " or --api-url"}, func() {}, nil
	}
	dsn, err := f.db.resolve(opts)
	if err != nil {
		return nil, nil, err
	}
	var file process.Secrets
	switch {
	case byFile:
		file = process.Secrets{Path: f.file}
	case IsPostgresURL(dsn):
		return nil, nil, Usagef("a database on PostgreSQL keeps no secrets file: each worker (and each replica, for its notification channels) reads its own --secrets-file; " +
			"run `ql secrets set NAME --secrets-file FILE` on its machine, with --database-url too to see the uses")
	default:
		file = process.Secrets{Path: opts.SecretsFile(dsn)}
	}
	if _, err := os.Stat(dsn); !IsPostgresURL(dsn) && errors.Is(err, fs.ErrNotExist) {
		return localSecrets{file: file, unknown: fmt.Sprintf("no database at %s yet: which tasks and channels use these names is not known", filepath.Dir(dsn))}, func() {}, nil
	}
	if write && !byFile {
		b, err := openExistingForWrite(ctx, opts, &f.db)
		if err != nil {
			return nil, nil, err
		}
		return localSecrets{file: file, defs: b.Definitions, record: b.Record}, b.Close, nil
	}
	b, err := open(ctx, opts, &f.db, true)
	if err != nil {
		return nil, nil, err
	}
	return localSecrets{file: file, defs: b.Definitions}, b.Close, nil
}

// readSecretValue reads a secret's value from standard input: asked twice
// without echo on a terminal, else all of it, without one trailing line
// ending (what echo and a here-document add). Never from the command
// line, where every user of the host reads it (ps).
func readSecretValue(cmd *cobra.Command, name string) (string, error) {
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		ask := func(prompt string) (string, error) {
			fmt.Fprint(cmd.ErrOrStderr(), prompt)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(cmd.ErrOrStderr())
			return string(b), err
		}
		v, err := ask(fmt.Sprintf("Value of secret %s: ", name))
		if err != nil {
			return "", fmt.Errorf("reading the value: %w", err)
		}
		if err := process.CheckSecretValue(name, v); err != nil {
			return "", err
		}
		again, err := ask("Again: ")
		if err != nil {
			return "", fmt.Errorf("reading the value: %w", err)
		}
		if again != v {
			return "", Usagef("the two values differ; nothing was changed")
		}
		return v, nil
	}
	// One byte past the limit and a line ending: more is refused, not cut.
	b, err := io.ReadAll(io.LimitReader(in, process.MaxSecretLen+3))
	if err != nil {
		return "", fmt.Errorf("reading the value from standard input: %w", err)
	}
	if len(b) > process.MaxSecretLen+2 {
		return "", qlerror.New(qlerror.Invalid, "standard input holds more than %d bytes: a secret's value holds at most %d (one line ending after it is dropped)", process.MaxSecretLen+2, process.MaxSecretLen)
	}
	v := string(b)
	if s, ok := strings.CutSuffix(v, "\r\n"); ok {
		v = s
	} else {
		v = strings.TrimSuffix(v, "\n")
	}
	return v, nil
}
