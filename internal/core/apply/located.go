package apply

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// LocatedError is an error about one place of a definitions file: its
// line and, where the parser knows it, its column (0 when not). Its text
// is the usual "file:line: message"; callers that show the place apart
// (the HTTP API, the console) read Line, Column and Detail.
type LocatedError struct {
	Line, Column int
	// Detail is the message without the "file:line: " prefix.
	Detail string
	err    *qlerror.Error
}

func (e *LocatedError) Error() string { return e.err.Error() }

// Unwrap exposes the coded error, so qlerror.CodeOf sees its code.
func (e *LocatedError) Unwrap() error { return e.err }

// located is the error of code at file:line(:column), optionally caused by
// cause (whose text follows the message, as qlerror.Wrap has it).
func located(code qlerror.Code, cause error, file string, line, column int, format string, args ...any) error {
	detail := fmt.Sprintf(format, args...)
	e := qlerror.Wrap(code, cause, "%s:%d: %s", file, line, detail)
	if cause != nil {
		detail += ": " + cause.Error()
	}
	return &LocatedError{Line: line, Column: column, Detail: detail, err: e}
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

// syntaxError is the decoder's error at its line, when it names one.
func syntaxError(file string, err error) error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil {
			return located(qlerror.Invalid, nil, file, line, 0, "%s", m[2])
		}
	}
	return nil
}
