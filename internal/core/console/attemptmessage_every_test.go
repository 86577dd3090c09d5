package console

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// attemptSample is one message as internal/core/run writes it, and the
// parameters it was written with, which its translation must name too.
type attemptSample struct {
	msg    string
	params []string
}

// A page in any language other than English never falls back to the
// English of a message QingLong records on an attempt: each message
// internal/core/run writes, produced by its own constant or function with
// every signal, every way a worker is stopped and several durations, reads
// in that language naming the parameters it was written with; and every
// …Message run declares is produced here, so a message added there fails
// until it has its words.
func TestEveryAttemptMessageQingLongRecordsReadsInEveryOtherLanguage(t *testing.T) {
	produced := map[string][]attemptSample{
		"NotStartedMessage":               {{msg: run.NotStartedMessage}},
		"AbandonedAttemptMessage":         {{msg: run.AbandonedAttemptMessage}},
		"UnspawnedGrantMessage":           {{msg: run.UnspawnedGrantMessage}},
		"LeaseExpiredMessage":             {{msg: run.LeaseExpiredMessage}},
		"EarlierLeaseExpiredMessage":      {{msg: run.EarlierLeaseExpiredMessage}},
		"WorkerRevokedMessage":            {{msg: run.WorkerRevokedMessage}},
		"DatabaseRolledBackMessage":       {{msg: run.DatabaseRolledBackMessage}},
		"LeaseExpiredAfterTimeoutMessage": {{msg: run.LeaseExpiredAfterTimeoutMessage}},
	}
	for sig := 1; sig <= workerproto.MaxSignal; sig++ {
		produced["SignalMessage"] = append(produced["SignalMessage"],
			attemptSample{run.SignalMessage(sig), []string{strconv.Itoa(sig), run.SignalName(sig)}})
	}
	for _, signal := range []string{"", run.SignalName(int(syscall.SIGINT)), run.SignalName(int(syscall.SIGTERM)), run.SignalName(int(syscall.SIGHUP))} {
		for _, timeout := range []time.Duration{time.Second, 1500 * time.Millisecond, 30 * time.Second, 90 * time.Second, 24 * time.Hour} {
			for _, again := range []bool{false, true} {
				produced["StoppedWorkerMessage"] = append(produced["StoppedWorkerMessage"],
					attemptSample{run.StoppedWorkerMessage(signal, timeout, again), []string{signal, timeout.String()}})
			}
		}
	}
	for _, late := range []time.Duration{11 * time.Second, 2 * time.Minute, 65 * time.Minute, 26 * time.Hour} {
		for _, within := range []time.Duration{5 * time.Second, 90 * time.Second} {
			produced["LeaseUnsweptMessage"] = append(produced["LeaseUnsweptMessage"],
				attemptSample{run.LeaseUnsweptMessage(late, within), []string{validate.Duration(late), validate.Duration(within)}})
		}
	}
	for _, name := range declared(t, "run", "Message", "SignalMessage") {
		if produced[name] == nil {
			t.Errorf("run.%s is a message QingLong records on an attempt that this test does not produce: add it here with representative parameters, and its words to attemptMessages", name)
		}
	}
	for l := range messages {
		if l == "en" {
			continue
		}
		for name, samples := range produced {
			for _, s := range samples {
				got := attemptMessage(l, s.msg)
				if got == s.msg {
					t.Errorf("run.%s reads in English on a %s page: %q; give it its words in attemptMessages", name, l, s.msg)
					continue
				}
				for _, p := range s.params {
					if !strings.Contains(got, p) {
						t.Errorf("run.%s on a %s page leaves out %q it was written with: %q", name, l, p, got)
					}
				}
			}
		}
	}
}

// declared are the names of what internal/core/<pkg> declares with the
// given suffix: its exported constants, variables and functions; one of
// them must be mustHave, or the search would prove nothing.
func declared(t *testing.T, pkg, suffix, mustHave string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	add := func(id *ast.Ident) {
		if id.IsExported() && strings.HasSuffix(id.Name, suffix) {
			names = append(names, id.Name)
		}
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					add(d.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if v, ok := s.(*ast.ValueSpec); ok {
						for _, id := range v.Names {
							add(id)
						}
					}
				}
			}
		}
	}
	if !slices.Contains(names, mustHave) {
		t.Fatalf("found no %s.%s among %d files of internal/core/%s: the search for its …%s would prove nothing", pkg, mustHave, len(files), pkg, suffix)
	}
	return names
}
