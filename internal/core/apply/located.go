package apply

import (
	"errors"
	"regexp"
	"strconv"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// LocatedError is an error about one place of a definitions file: its
// line and, where the parser knows it, its column (0 when not). Its text
// is the usual "file:line: message"; callers that show the place apart
// (the HTTP API, the console) read Line, Column and Detail, and the
// reason and params of the error it wraps (qlerror.ReasonOf, ParamsOf) to
// word it in their own language.
type LocatedError struct {
	Line, Column int
	// Detail is the message without the "file:line: " prefix.
	Detail string
	err    *qlerror.Error
}

func (e *LocatedError) Error() string { return e.err.Error() }

// Unwrap exposes the coded error, so qlerror.CodeOf sees its code and
// qlerror.ReasonOf the reason of the error it locates.
func (e *LocatedError) Unwrap() error { return e.err }

// located is err placed at file:line(:column), with err's code.
func located(file string, line, column int, err error) error {
	return &LocatedError{Line: line, Column: column, Detail: err.Error(), err: qlerror.Wrap(qlerror.CodeOf(err), err, "%s:%d", file, line)}
}

// invalid is the Invalid error of a definitions file's content.
func invalid(format string, args ...any) *qlerror.Error {
	return qlerror.New(qlerror.Invalid, format, args...)
}

// Locate returns where in its file err points, if it does: its line,
// column (0 when unknown) and message without the file and line.
func Locate(err error) (line, column int, detail string, ok bool) {
	var le *LocatedError
	if !errors.As(err, &le) {
		return 0, 0, "", false
	}
	return le.Line, le.Column, le.Detail, true
}

// yamlLine finds the line the YAML decoder names in its syntax errors
// ("line 3: did not find expected key").
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// syntaxError is the decoder's error at its line, when it names one; the
// decoder's words are the reason's detail.
func syntaxError(file string, err error) error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil {
			return located(file, line, 0, invalid("%s", m[2]).Because(RefusalYAMLSyntax, "detail", m[2]))
		}
	}
	return nil
}
