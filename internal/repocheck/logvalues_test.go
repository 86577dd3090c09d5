package repocheck

import (
	"go/ast"
	"go/types"
	"regexp"
	"strings"
	"testing"
)

// Every duration a log line carries is an integer of milliseconds under a
// key ending in _ms (docs/operations.md, "Logging"): a time.Duration would
// reach a JSON line as nanoseconds and a text one as "1m30s", and a
// duration's text (d.String(), fmt.Sprint(d), validate.Duration(d)) is a
// string a log pipeline cannot add up or compare.
func TestLoggedDurationsAreWholeMilliseconds(t *testing.T) {
	t.Parallel()
	values := 0
	pkgs := typedPackages(t)
	for i, lists := range everyLogAttrs(pkgs) {
		pkg := pkgs[i]
		for _, l := range lists {
			l.pairs(pkg.info, func(key string, keyExpr, value ast.Expr) {
				if value == nil {
					return
				}
				values++
				if notificationKeys[pkg.rel][key] {
					return
				}
				at := pkg.where(keyExpr.Pos())
				switch unit := durationUnit(pkg.info, value); {
				case unit == "duration":
					t.Errorf("%s: %q logs a time.Duration (nanoseconds in JSON): log d.Milliseconds() as %q", at, key, msKey(key))
				case unit == "text":
					t.Errorf("%s: %q logs a duration as text: log d.Milliseconds() as %q", at, key, msKey(key))
				case unit == "Milliseconds" && !msSuffix.MatchString(key):
					t.Errorf("%s: %q logs milliseconds under a key without the _ms suffix: name it %q", at, key, msKey(key))
				case unit != "" && unit != "Milliseconds":
					t.Errorf("%s: %q logs a duration in %s: log d.Milliseconds() as %q", at, key, unit, msKey(key))
				}
			})
		}
	}
	if values < 300 {
		t.Fatalf("only %d logged values were found; the scan is broken", values)
	}
}

var msSuffix = regexp.MustCompile(`(^|_)ms$`)

// msKey is the key a duration logged under key takes: snake_case, ending
// in _ms.
func msKey(key string) string {
	if key = snake(key); msSuffix.MatchString(key) {
		return key
	}
	return key + "_ms"
}

// snake spells a camelCase key in snake_case (runId → run_id).
func snake(key string) string {
	return strings.ToLower(camelHump.ReplaceAllString(key, "${1}_${2}"))
}

var camelHump = regexp.MustCompile(`([a-z0-9])([A-Z])`)

// durationUnit says how value e carries a duration: "duration" for a
// time.Duration, "text" for a string made of one, the name of the
// time.Duration method that made it a number ("Milliseconds", "Seconds"…),
// or "" for a value that is none of these.
func durationUnit(info *types.Info, e ast.Expr) string {
	e = ast.Unparen(e)
	if conv, ok := e.(*ast.CallExpr); ok && len(conv.Args) == 1 && info.Types[conv.Fun].IsType() {
		e = ast.Unparen(conv.Args[0]) // int(d.Milliseconds())
	}
	if isDuration(info.Types[e].Type) {
		return "duration"
	}
	if call, ok := e.(*ast.CallExpr); ok {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && isDuration(info.Types[sel.X].Type) && !isString(info.Types[call].Type) {
			return sel.Sel.Name
		}
	}
	if t := info.Types[e].Type; t == nil || !isString(t.Underlying()) {
		return ""
	}
	text := false
	ast.Inspect(e, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && formatsDuration(info, call) {
			text = true
		}
		return !text
	})
	if text {
		return "text"
	}
	return ""
}

// formatsDuration reports whether call writes a duration as text: a
// time.Duration's own String, or a formatter (package fmt, validate's
// Duration) given one. A function that only words a message around a
// duration (an error's text) is not one.
func formatsDuration(info *types.Info, call *ast.CallExpr) bool {
	fn, _ := callee(info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	if recv := fn.Signature().Recv(); recv != nil {
		return isDuration(recv.Type()) && fn.Name() == "String"
	}
	if fn.Pkg().Path() != "fmt" && !(fn.Pkg().Path() == module+"/internal/core/validate" && fn.Name() == "Duration") {
		return false
	}
	for _, a := range call.Args {
		if isDuration(info.Types[a].Type) {
			return true
		}
	}
	return false
}

// snakeKey is the spelling of every key a log line carries: lower-case
// words joined by underscores, as the server has always written them
// (run_id, duration_ms), so a pipeline indexes one field per meaning.
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// notificationKeys are keys of the notifications' lines that
// docs/notifications.md and docs/operations.md give operators as they are
// (retryIn as text such as "1m30s"); they change with those documents.
var notificationKeys = map[string]map[string]bool{
	"internal/core/notify": {"reasonCode": true, "retryIn": true},
}

// Every key of every log line, the worker's as the server's, is snake_case.
func TestLogKeysAreSnakeCase(t *testing.T) {
	t.Parallel()
	keys := 0
	pkgs := typedPackages(t)
	for i, lists := range everyLogAttrs(pkgs) {
		pkg := pkgs[i]
		for _, l := range lists {
			l.pairs(pkg.info, func(key string, keyExpr, _ ast.Expr) {
				keys++
				if snakeKey.MatchString(key) || notificationKeys[pkg.rel][key] {
					return
				}
				t.Errorf("%s: the log key %q is not snake_case: name it %q, and where docs/*.md name it", pkg.where(keyExpr.Pos()), key, snake(key))
			})
		}
	}
	if keys < 300 {
		t.Fatalf("only %d log keys were found; the scan is broken", keys)
	}
}
