package apply

import (
	"bytes"
	"errors"
	"regexp"
	"sort"
	"strconv"

	"go.yaml.in/yaml/v3"

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

// syntaxError is the decoder's error at the line at fault (problemLine),
// when it names a line; the decoder's words are the reason's detail.
func syntaxError(file string, data []byte, err error) error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil {
			at := problemLine(data, line, m[2])
			msg := m[2]
			if indentedWithTab(data, at) {
				msg += " (the line is indented with a tab; YAML indents with spaces only)"
			}
			return located(file, at, 0, invalid("%s", msg).Because(RefusalYAMLSyntax, "detail", m[2]))
		}
	}
	return nil
}

// problemLine is the line a YAML syntax error is on. For an error inside a
// block the decoder names the line where the block starts, not the line it
// could not read: a key indented one space too few in a list of triggers is
// reported at "triggers:", however far above. The first prefix of the file
// that fails with the same words ends at the line at fault; no prefix ending
// above the block's start can fail so, which bounds the search. When the
// whole file does not fail so on its own (the error was in a later
// document), the decoder's line stands.
func problemLine(data []byte, reported int, detail string) int {
	ends := lineEnds(data)
	failsAt := func(lines int) bool {
		var n yaml.Node
		err := yaml.Unmarshal(data[:ends[lines-1]], &n)
		if err == nil {
			return false
		}
		m := yamlLine.FindStringSubmatch(err.Error())
		return m != nil && m[2] == detail
	}
	if reported < 1 || reported > len(ends) || !failsAt(len(ends)) {
		return reported
	}
	return reported + sort.Search(len(ends)-reported+1, func(i int) bool { return failsAt(reported + i) })
}

// indentedWithTab tells whether line (1-based) of data has a tab in its
// indentation, the most common YAML error a reader cannot see.
func indentedWithTab(data []byte, line int) bool {
	ends := lineEnds(data)
	if line < 1 || line > len(ends) {
		return false
	}
	start := 0
	if line > 1 {
		start = ends[line-2]
	}
	text := data[start:ends[line-1]]
	indent := text[:len(text)-len(bytes.TrimLeft(text, " \t"))]
	return bytes.IndexByte(indent, '\t') >= 0
}

// lineEnds are the offsets just past each line of data, newline included.
func lineEnds(data []byte) []int {
	var ends []int
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	return ends
}
