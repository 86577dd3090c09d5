package console

import (
	"go/ast"
	"go/parser"
	"go/token"
	"iter"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// refusingPackages are the directories of the packages whose refusals the
// console shows: its own, the stores' contract and the core packages, a
// definitions file's parse and validation among them.
var refusingPackages = []string{".", "../schedule", "../run", "../catalog", "../apitoken", "../validate",
	"../apply", "../cron", "../task", "../trigger", "../notify", "../project", "../hold", "../account", "../scripts", "../subscription", "../deps", "../qlimport"}

// Every refusal reason declared by the console and by the core packages
// whose refusals it shows has a sentence in every language but English (an
// English page shows the error's own words), so a Chinese page shows no
// English sentence of theirs.
func TestEveryRefusalReasonHasASentenceInEveryOtherLanguage(t *testing.T) {
	declared := 0
	for path, reason := range reasonsDeclaredInPackages(t, refusingPackages, "qlerror.Reason") {
		declared++
		for l, table := range refusals {
			if table[reason] == "" {
				t.Errorf("%s: reason %q has no sentence in %s", path, reason, l)
			}
		}
	}
	if declared < 10 {
		t.Fatalf("only %d reasons were found declared; the scan is broken", declared)
	}
}

// attemptCodePackages are the directories of the packages that record an
// error code on an attempt, each with the prefix of the names of the
// constants it declares them as: the executors' and the stores' codes
// (ErrorCode…), and the worker protocol's stop reasons (Stop…), which a
// worker reports as the code of the command it stopped.
var attemptCodePackages = map[string]string{
	"../process": "ErrorCode", "../../single/executor": "ErrorCode", "../../single/sqlitestore": "ErrorCode",
	"../../cluster/pgstore": "ErrorCode", "../../worker/agent": "ErrorCode", "../workerproto": "Stop",
}

// Every error code an attempt can carry has a sentence in every language
// but English (an English page shows the attempt's own message, else its
// code), so a Chinese Run page says in Chinese why each attempt ended. No
// sentence ends in a parenthesis of its own: an event says its code after
// it in one, which would read as two in a row.
func TestEveryAttemptErrorCodeHasASentenceInEveryOtherLanguage(t *testing.T) {
	declared := 0
	for dir, prefix := range attemptCodePackages {
		for path, code := range constantsDeclaredInPackages(t, []string{dir}, func(name, _ string) bool { return strings.HasPrefix(name, prefix) }) {
			declared++
			for l, table := range attemptEnds {
				if table[string(code)] == "" {
					t.Errorf("%s: attempt error code %q has no sentence in %s", path, code, l)
				}
				if s := table[string(code)]; strings.HasSuffix(s, "）") || strings.HasSuffix(s, ")") {
					t.Errorf("attempt error code %q: its %s sentence %q ends in a parenthesis, which its event's (code) would follow", code, l, s)
				}
			}
		}
	}
	if declared < 15 {
		t.Fatalf("only %d attempt error codes were found declared; the scan is broken", declared)
	}
	if attemptWhy("en", "server_stopped") != "" || attemptWhy("zh", "from_a_newer_server") != "" {
		t.Error("an English page, or a code with no sentence, has a sentence")
	}
}

// reasonsDeclaredInPackages yields each reason the non-test Go files of
// dirs declare as constants of the type typ, as the files write it
// ("qlerror.Reason"; "NoteReason" in apply itself), with the file that
// declares it.
func reasonsDeclaredInPackages(t *testing.T, dirs []string, typ string) iter.Seq2[string, qlerror.Reason] {
	return constantsDeclaredInPackages(t, dirs, func(_, written string) bool { return written == typ })
}

// constantsDeclaredInPackages yields the value of each string constant
// the non-test Go files of dirs declare that match accepts by its name and
// its type as the file writes it ("" for an untyped one), with the file
// that declares it.
func constantsDeclaredInPackages(t *testing.T, dirs []string, match func(name, typ string) bool) iter.Seq2[string, qlerror.Reason] {
	return func(yield func(string, qlerror.Reason) bool) {
		for _, dir := range dirs {
			files, err := filepath.Glob(filepath.Join(dir, "*.go"))
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range files {
				if strings.HasSuffix(path, "_test.go") {
					continue
				}
				for _, reason := range constantsDeclaredIn(t, path, match) {
					if !yield(path, reason) {
						return
					}
				}
			}
		}
	}
}

// constantsDeclaredIn are the values of the string constants the Go file
// at path declares that match accepts by name and type, as it writes it.
func constantsDeclaredIn(t *testing.T, path string, match func(name, typ string) bool) []qlerror.Reason {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []qlerror.Reason
	ast.Inspect(f, func(n ast.Node) bool {
		decl, ok := n.(*ast.GenDecl)
		if !ok || decl.Tok != token.CONST {
			return true
		}
		for _, sp := range decl.Specs {
			spec := sp.(*ast.ValueSpec)
			written := ""
			switch ty := spec.Type.(type) {
			case *ast.SelectorExpr:
				if x, ok := ty.X.(*ast.Ident); ok {
					written = x.Name + "." + ty.Sel.Name
				}
			case *ast.Ident:
				written = ty.Name
			}
			for i, v := range spec.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || i >= len(spec.Names) || !match(spec.Names[i].Name, written) {
					continue
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && lit.Kind == token.STRING {
					out = append(out, qlerror.Reason(s))
				}
			}
		}
		return true
	})
	return out
}
