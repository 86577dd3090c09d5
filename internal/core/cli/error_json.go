package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// errorJSON is the last line a command asked for -o json prints on
// standard error when it fails: the error's code, reason and params, the
// same names an API error body carries, so a script tells one refusal from
// another (trigger_disabled, run_not_finished, spec_changed: all exit 4)
// without matching the English message. Standard output stays empty on
// failure, so a script's JSON parser never meets half a document.
type errorJSON struct {
	Error errorJSONDetail `json:"error"`
}

type errorJSONDetail struct {
	Code    qlerror.Code      `json:"code"`
	Reason  qlerror.Reason    `json:"reason,omitempty"`
	Params  map[string]string `json:"params,omitempty"`
	Message string            `json:"message"`
}

// sayErrorJSON prints err, whose text line msg has been printed, as
// errorJSON on w, when cmd was asked for -o json. A usage error is
// invalid input, whatever its error's code.
func sayErrorJSON(cmd *cobra.Command, w io.Writer, err error, msg string, usage bool) {
	if cmd == nil {
		return
	}
	out := cmd.Flags().Lookup("output")
	if out == nil || out.Value.String() != "json" {
		return
	}
	code := qlerror.CodeOf(err)
	// A file to fix exits 2, as input refused does: its line says the
	// code that exit means, not the failed_precondition a server keeps
	// for its own file (4 everywhere else).
	if usage || fileToFix(err) {
		code = qlerror.Invalid
	}
	_ = writeCompactJSON(w, errorJSON{Error: errorJSONDetail{Code: code, Reason: qlerror.ReasonOf(err), Params: qlerror.ParamsOf(err), Message: msg}})
}
