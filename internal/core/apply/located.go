package apply

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/qinglong/qinglong/internal/core/plural"
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
	// About is the task or trigger of the file the error is about, when
	// it is about one (Kind "" when not): a mistake in one of its fields,
	// its name given twice, its task missing or disabled, the store
	// refusing to publish it. A client finds the entry by it, not by
	// reading Detail.
	About Entry
	// Lead tells that Detail starts with About (`task "NAME": `) because
	// the error says what is wrong with a field, not which entry has it:
	// a caller wording the error by its reason in another language starts
	// it with the entry too. An error whose own sentence names its entry
	// (a name given twice, a trigger of a missing task) has no lead.
	Lead bool
	err  *qlerror.Error
}

// Entry is one task or trigger of a definitions file: its kind ("task" or
// "trigger"), its place in the file's list of them (from 0), and its name
// ("" when the name could not be read).
type Entry struct {
	Kind  string
	Index int
	Name  string
}

// path is the entry's key path in the file: tasks[0], triggers[2].
func (e Entry) path() string { return fmt.Sprintf("%ss[%d]", e.Kind, e.Index) }

func (e *LocatedError) Error() string { return e.err.Error() }

// Unwrap exposes the coded error, so qlerror.CodeOf sees its code and
// qlerror.ReasonOf the reason of the error it locates.
func (e *LocatedError) Unwrap() error { return e.err }

// Path is the key path of the file the error is at, from the file's top:
// the field its reason names, in its entry (triggers[2].timezone,
// tasks[0].command[1]) or at the top (notifications.rules[1].on,
// project); the entry's own path (triggers[2]) when the error names no
// field of it; "" when neither is known (a YAML syntax error).
func (e *LocatedError) Path() string {
	field := qlerror.ParamsOf(e)["field"]
	if e.About.Kind == "" {
		if field == "file" {
			// The top-level mapping itself: the key at fault is in the
			// error's value, and the line says where.
			return ""
		}
		return field
	}
	if rest, ok := strings.CutPrefix(field, e.About.Kind); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
		return e.About.path() + rest
	}
	return e.About.path()
}

// located is err placed at file:line(:column), with err's code.
func located(file string, line, column int, err error) *LocatedError {
	return &LocatedError{Line: line, Column: column, Detail: err.Error(), err: qlerror.Wrap(qlerror.CodeOf(err), err, "%s:%d", file, line)}
}

// locatedIn is err, a mistake in a field of entry (or its refusal by the
// store), placed at file:line(:column) and saying which entry it is
// about, before err's own words.
func locatedIn(file string, line, column int, entry Entry, err error) *LocatedError {
	le := located(file, line, column, qlerror.Wrap(qlerror.CodeOf(err), err, "%s %q", entry.Kind, entry.Name))
	le.About, le.Lead = entry, true
	return le
}

// about is err placed as located places it, about entry, whose name its
// own words say.
func about(file string, line int, entry Entry, err error) *LocatedError {
	le := located(file, line, 0, err)
	le.About = entry
	return le
}

// MaxErrors is how many errors of one file are listed; those found past
// it are counted. A file that wrong is more likely a wrong file than 50
// mistakes to fix one by one.
const MaxErrors = 50

// FileErrors is every error found in one reading of a definitions file,
// each at its place, in file order: errors that do not depend on each
// other (a bad cron in one trigger, a task name given twice, an unknown
// field in a third) are all reported at once, so a file is fixed in one
// pass. Nothing of the file was written.
//
// Its code, reason and params are the first error's (Unwrap), so a caller
// that reads one error reads the first.
type FileErrors struct {
	File string
	// Errors are the first MaxErrors errors, in file order.
	Errors []*LocatedError
	// More counts the errors found past them.
	More int
}

// Error is the one error's text when there is one; else each error on its
// line (Lines), then the count (Summary).
func (e *FileErrors) Error() string {
	if len(e.Errors) == 1 && e.More == 0 {
		return e.Errors[0].Error()
	}
	return strings.Join(append(e.Lines(), e.Summary()), "\n")
}

// Unwrap is the first error.
func (e *FileErrors) Unwrap() error { return e.Errors[0] }

// Lines are the errors as compilers print theirs, one a line:
// FILE:LINE:COLUMN: message (FILE:LINE: message when the column is not
// known), then a line counting those not listed.
func (e *FileErrors) Lines() []string {
	lines := make([]string, 0, len(e.Errors)+1)
	for _, le := range e.Errors {
		at := fmt.Sprintf("%s:%d", e.File, le.Line)
		if le.Column > 0 {
			at += fmt.Sprintf(":%d", le.Column)
		}
		lines = append(lines, at+": "+le.Detail)
	}
	if e.More > 0 {
		lines = append(lines, fmt.Sprintf("and %s, listed once those above are fixed", plural.Count(e.More, "more error", "more errors")))
	}
	return lines
}

// Summary counts the errors: "defs.yaml: 3 errors; nothing was applied".
func (e *FileErrors) Summary() string {
	return fmt.Sprintf("%s: %s; nothing was applied", e.File, plural.Count(len(e.Errors)+e.More, "error", "errors"))
}

// Errors are the errors of a definitions file err holds, in file order,
// and the count of those found past them: a FileErrors' list, or the one
// error at its place (a publish refused for one object); none when err
// is at no place of a file.
func Errors(err error) (list []*LocatedError, more int) {
	var fe *FileErrors
	if errors.As(err, &fe) {
		return fe.Errors, fe.More
	}
	var le *LocatedError
	if errors.As(err, &le) {
		return []*LocatedError{le}, 0
	}
	return nil, 0
}

// found gathers the errors of one file as they are found.
type found struct{ errs []*LocatedError }

func (f *found) add(le *LocatedError) { f.errs = append(f.errs, le) }

// count is how many errors have been found so far: a part of the file
// read without adding to it was read whole.
func (f *found) count() int { return len(f.errs) }

// err is the errors found, in file order (by line, then column; an error
// at no known column first on its line; at one place, in the order they
// were found), as a FileErrors; nil when there are none. The order they
// were found in is the parser's, not the file's: a trigger's misfire is
// checked before its jitter, wherever each is written.
func (f *found) err(file string) error {
	if len(f.errs) == 0 {
		return nil
	}
	list := slices.Clone(f.errs)
	slices.SortStableFunc(list, func(a, b *LocatedError) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	fe := &FileErrors{File: file, Errors: list}
	if len(list) > MaxErrors {
		fe.Errors, fe.More = list[:MaxErrors], len(list)-MaxErrors
	}
	return fe
}

// invalid is the Invalid error of a definitions file's content.
func invalid(format string, args ...any) *qlerror.Error {
	return qlerror.New(qlerror.Invalid, format, args...)
}

// Locate returns where in its file err points, if it does: its line,
// column (0 when unknown) and message without the file and line; the
// first error's, of a FileErrors.
func Locate(err error) (line, column int, detail string, ok bool) {
	var le *LocatedError
	if !errors.As(err, &le) {
		return 0, 0, "", false
	}
	return le.Line, le.Column, le.Detail, true
}

// yamlLine finds the line the YAML decoder names in its syntax errors
// ("line 3: did not find expected key"). It names none for a mistake on
// the first line, nor for a byte it cannot read (a control character,
// invalid UTF-8), wherever that is.
var yamlLine = regexp.MustCompile(`^(?:yaml: )?(?:line (\d+): )?(.*)$`)

// syntaxError is the decoder's error at the line at fault (problemLine);
// the decoder's words are the reason's detail. An error naming no line is
// searched for from the first line; it is left without one only when the
// first document alone does not fail so (the error was in a later one).
func syntaxError(file string, data []byte, err error) *LocatedError {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return nil
	}
	line := 1
	if m[1] != "" {
		n, convErr := strconv.Atoi(m[1])
		if convErr != nil {
			return nil
		}
		line = n
	} else if !failsWith(data, len(lineEnds(data)), m[2]) {
		return nil
	}
	at := problemLine(data, line, m[2])
	msg := m[2]
	switch {
	case strings.Contains(m[2], "UTF-8"):
		return located(file, at, 0, invalid("%s (the file is not UTF-8 text: save it as UTF-8)", msg).Because(RefusalNotUTF8Text, "detail", m[2]))
	case strings.Contains(m[2], "control characters"):
		if c, ok := controlCharacter(data, at); ok {
			return located(file, at, 0, invalid("%s (the line holds %s: remove the character)", msg, c).Because(RefusalControlCharacter, "detail", m[2], "char", c))
		}
	case indentedWithTab(data, at):
		msg += " (the line is indented with a tab; YAML indents with spaces only)"
	}
	return located(file, at, 0, invalid("%s", msg).Because(RefusalYAMLSyntax, "detail", m[2]))
}

// controlCharacter is the first control character on line (1-based) of
// data that YAML does not take (tab, CR and LF it does), as U+XXXX: it
// cannot be seen in most editors, so the message names it.
func controlCharacter(data []byte, line int) (string, bool) {
	ends := lineEnds(data)
	if line < 1 || line > len(ends) {
		return "", false
	}
	start := 0
	if line > 1 {
		start = ends[line-2]
	}
	for _, r := range string(data[start:ends[line-1]]) {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return fmt.Sprintf("U+%04X", r), true
		}
	}
	return "", false
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
	failsAt := func(lines int) bool { return failsWith(data, lines, detail) }
	if reported < 1 || reported > len(ends) || !failsAt(len(ends)) {
		return reported
	}
	return reported + sort.Search(len(ends)-reported+1, func(i int) bool { return failsAt(reported + i) })
}

// failsWith tells whether the first lines of data (at least one) fail to
// decode with the words detail.
func failsWith(data []byte, lines int, detail string) bool {
	ends := lineEnds(data)
	if lines < 1 || lines > len(ends) {
		return false
	}
	var n yaml.Node
	err := yaml.Unmarshal(data[:ends[lines-1]], &n)
	if err == nil {
		return false
	}
	m := yamlLine.FindStringSubmatch(err.Error())
	return m != nil && m[2] == detail
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
