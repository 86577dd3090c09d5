package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// printRemoteNotes prints the server's notes whose reason is (or, with
// secrets false, is not) about secrets, each as printNotes prints a local
// note: the server's English sentence, which it computed with what it
// knows (its secrets file, its profile).
func printRemoteNotes(cmd *cobra.Command, project string, out httpapi.ApplyView, secrets bool) {
	for _, n := range out.Notes {
		if r := apply.NoteReason(n.Reason); (r == apply.NoteSecretsMissing || r == apply.NoteSecretsUnusable) == secrets {
			printNote(cmd, project, n.Message)
		}
	}
}

// codeTooLarge is the API's error code of a request body over its cap,
// apiMaxBody (httpapi.DefaultLimits.MaxBody, which this package does not
// import: ql-worker, built on it, has no API).
const (
	codeTooLarge qlerror.Code = "request_too_large"
	apiMaxBody                = 1 << 20
)

// applyMode is what an apply is asked to do beyond converging its file:
// only show the plan (dryRun), or only create (createOnly).
type applyMode struct{ dryRun, createOnly bool }

// applyRemote validates file here (errors name its path and line) and
// sends it to the server's API, which validates and publishes it again
// with its own clock and store, and prints what the server did.
func applyRemote(cmd *cobra.Command, db *dbFlags, file string, mode applyMode, ifMatch, output string) error {
	dryRun := mode.dryRun
	c, err := remoteClient(db)
	if err != nil {
		return err
	}
	if ifMatch != "" {
		c.header = http.Header{"If-Match": {`"` + ifMatch + `"`}}
	}
	data, name, err := readDefinitions(cmd, file)
	if err != nil {
		return err
	}
	// Its mistakes are cited as a local apply cites them: at the path
	// given, or "stdin" for -.
	cited := file
	if file == "-" {
		cited = "stdin"
	}
	doc, err := apply.Read(cited, bytes.NewReader(data))
	if err != nil {
		return fileErrors(cmd, err)
	}
	q := url.Values{"file": {name}, "dryRun": {strconv.FormatBool(dryRun)}}
	if mode.createOnly {
		q.Set("createOnly", "true")
	}
	var out httpapi.ApplyView
	if err := c.do(cmd.Context(), "POST", "/api/v1/apply", q, "application/yaml", bytes.NewReader(data), &out); err != nil {
		if qlerror.CodeOf(err) == codeTooLarge {
			return tooLargeForAPI(cmd, file, len(data))
		}
		return serverFileErrorsAt(cmd, file, err)
	}
	if output == "json" {
		// The server's answer is the document, its notes in it.
		return writeJSON(cmd.OutOrStdout(), out)
	}
	// In the order a local apply prints them: the secrets last, after
	// the results, as what the applied file still needs.
	printRemoteNotes(cmd, doc.Project, out, false)
	results := make([]apply.Result, len(out.Objects))
	for i, o := range out.Objects {
		results[i] = apply.Result{Kind: o.Kind, Name: o.Name, Change: catalog.Change(o.Change), Revision: o.Revision, Fields: o.Fields, Runs: o.Runs}
	}
	line := apply.Result.String
	if dryRun {
		line = apply.Result.Planned
	}
	printApplied(cmd, results, line)
	w := textWriter{cmd.OutOrStdout()}
	if dryRun {
		fmt.Fprintf(w, "%s: valid (%s, %s); dry run, nothing written\n", file, plural.Count(len(doc.Tasks), "task", "tasks"), plural.Count(len(doc.Triggers), "trigger", "triggers"))
	}
	printRemoteNotes(cmd, doc.Project, out, true)
	return nil
}

// serverFileErrorsAt prints each error the server placed in the file on
// its own line of standard error, at the file as the command line names
// it (FILE:LINE:COLUMN: message, as a local apply prints its errors, which
// editors jump to; the server knows only its base name), and returns
// their count for the last line, with the server's code. Any other err is
// returned as it is, and so is a failure whose outcome the server's own
// message says more of (unavailable: apply the file again).
func serverFileErrorsAt(cmd *cobra.Command, file string, err error) error {
	var fe *serverFileErrors
	if !errors.As(err, &fe) {
		return err
	}
	switch qlerror.CodeOf(err) {
	case qlerror.Invalid, qlerror.Conflict, qlerror.MutationDrift, qlerror.FailedPrecondition, qlerror.NotFound:
	default:
		return err
	}
	if file == "-" {
		file = "stdin"
	}
	w := textWriter{cmd.ErrOrStderr()}
	for _, e := range fe.List {
		at := fmt.Sprintf("%s:%d", file, e.Line)
		if e.Column > 0 {
			at += fmt.Sprintf(":%d", e.Column)
		}
		fmt.Fprintf(w, "%s: %s\n", at, e.Message)
	}
	if fe.More > 0 {
		fmt.Fprintf(w, "and %s, listed once those above are fixed\n", plural.Count(fe.More, "more error", "more errors"))
	}
	return withReasonOf(err, qlerror.New(qlerror.CodeOf(err), "server: %s: %s; nothing was applied", file, plural.Count(len(fe.List)+fe.More, "error", "errors")))
}

// tooLargeForAPI is the server's refusal of a file over its cap on a
// request body: invalid input (exit 2), as a file over apply's own limit
// is, since the same file split or applied on the database goes through.
// It names the database flags this binary has (ql-edge has no
// --database-url).
func tooLargeForAPI(cmd *cobra.Command, file string, size int) error {
	what := file
	if file == "-" {
		what = "the definitions on standard input"
	}
	database := "--data-dir"
	if urlFlagOf(cmd.Flags()) != nil {
		database = "--data-dir or --database-url"
	}
	return qlerror.New(qlerror.Invalid, "%s (%.1f MiB) is over the API's limit of %d MiB in one request: split the project over several files "+
		"and apply each (objects a file leaves out are kept as they are), or apply it on the database directly (%s instead of --api-url), "+
		"which takes files of up to %d MiB", what, float64(size)/(1<<20), apiMaxBody>>20, database, apply.MaxFileSize>>20)
}

// readDefinitions reads at most one byte past the file limit (apply.Read
// refuses more) and the name the server cites it by: the file's base
// name, "stdin" for -.
func readDefinitions(cmd *cobra.Command, file string) ([]byte, string, error) {
	var r io.Reader = cmd.InOrStdin()
	name := "stdin"
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, "", qlerror.Wrap(qlerror.Invalid, err, "cannot read definitions file")
		}
		defer f.Close() //nolint:errcheck // read only
		r, name = f, filepath.Base(file)
	}
	data, err := io.ReadAll(io.LimitReader(r, apply.MaxFileSize+1))
	if err != nil {
		return nil, "", qlerror.Wrap(qlerror.Invalid, err, "%s: cannot read definitions file", file)
	}
	return data, name, nil
}
