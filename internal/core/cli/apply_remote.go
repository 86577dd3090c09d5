package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// remoteApply is POST /api/v1/apply's answer.
type remoteApply struct {
	Objects []struct {
		Kind     string   `json:"kind"`
		Name     string   `json:"name"`
		Change   string   `json:"change"`
		Revision int64    `json:"revision"`
		Fields   []string `json:"fields"`
	} `json:"objects"`
	Notes []struct {
		Reason  apply.NoteReason `json:"reason"`
		Message string           `json:"message"`
	} `json:"notes"`
}

// printRemoteNotes prints the server's notes whose reason is (or, with
// secrets false, is not) about secrets, each as printNotes prints a local
// note: the server's English sentence, which it computed with what it
// knows (its secrets file, its profile).
func printRemoteNotes(cmd *cobra.Command, out remoteApply, secrets bool) {
	for _, n := range out.Notes {
		if (n.Reason == apply.NoteSecretsMissing || n.Reason == apply.NoteSecretsUnusable) == secrets {
			printNote(cmd, n.Message)
		}
	}
}

// codeTooLarge is the API's error code of a request body over its cap.
const codeTooLarge qlerror.Code = "request_too_large"

// applyRemote validates file here (errors name its path and line) and
// sends it to the server's API, which validates and publishes it again
// with its own clock and store, and prints what the server did.
func applyRemote(cmd *cobra.Command, db *dbFlags, file string, dryRun bool) error {
	c, err := remoteClient(db)
	if err != nil {
		return err
	}
	data, name, err := readDefinitions(cmd, file)
	if err != nil {
		return err
	}
	doc, err := apply.Read(file, bytes.NewReader(data))
	if err != nil {
		return fileErrors(cmd, err)
	}
	q := url.Values{"file": {name}, "dryRun": {strconv.FormatBool(dryRun)}}
	var out remoteApply
	if err := c.do(cmd.Context(), "POST", "/api/v1/apply", q, "application/yaml", bytes.NewReader(data), &out); err != nil {
		if qlerror.CodeOf(err) == codeTooLarge {
			return qlerror.New(codeTooLarge, "%v: split the project over several files and apply each (objects a file leaves out are kept as they are), "+
				"or apply it to the database directly (--data-dir or --database-url), which takes files of up to %d MiB", err, apply.MaxFileSize>>20)
		}
		return err
	}
	// In the order a local apply prints them: the secrets last, after
	// the results, as what the applied file still needs.
	printRemoteNotes(cmd, out, false)
	w := textWriter{cmd.OutOrStdout()}
	for _, o := range out.Objects {
		r := apply.Result{Kind: o.Kind, Name: o.Name, Change: catalog.Change(o.Change), Revision: o.Revision, Fields: o.Fields}
		if dryRun {
			fmt.Fprintln(w, r.Planned())
		} else {
			fmt.Fprintln(w, r)
		}
	}
	if dryRun {
		fmt.Fprintf(w, "%s: valid (%s, %s); dry run, nothing written\n", file, plural.Count(len(doc.Tasks), "task", "tasks"), plural.Count(len(doc.Triggers), "trigger", "triggers"))
	}
	printRemoteNotes(cmd, out, true)
	return nil
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
