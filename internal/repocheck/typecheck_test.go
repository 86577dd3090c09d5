package repocheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// typedPackage is one package of this module, parsed and type-checked, with
// the types of its expressions.
type typedPackage struct {
	rel   string
	fset  *token.FileSet
	files []*ast.File
	info  *types.Info
}

// where is the file and line of pos, from the repository's root.
func (p typedPackage) where(pos token.Pos) string {
	at := p.fset.Position(pos)
	return fmt.Sprintf("%s/%s:%d", p.rel, filepath.Base(at.Filename), at.Line)
}

// typed holds the module's packages type-checked once for every test that
// reads them.
var typed struct {
	once sync.Once
	pkgs []typedPackage
	err  error
}

// typedPackages returns every non-test package of this module,
// type-checked against the export data `go list -export` builds for its
// imports, so a check can ask the type of any expression (a logger's
// argument) rather than guess it from its spelling.
func typedPackages(t *testing.T) []typedPackage {
	t.Helper()
	typed.once.Do(func() { typed.pkgs, typed.err = typeCheck() })
	if typed.err != nil {
		t.Fatal(typed.err)
	}
	if len(typed.pkgs) < 50 {
		t.Fatalf("only %d packages of this module were type-checked; the scan is broken", len(typed.pkgs))
	}
	return typed.pkgs
}

func typeCheck() ([]typedPackage, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles", "./...")
	cmd.Dir = repoRoot
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export ./...: %v\n%s", err, stderr.String())
	}
	type pkg struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
	}
	exports := map[string]string{}
	var ours []pkg
	for dec := json.NewDecoder(strings.NewReader(string(out))); ; {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -export: decoding its output: %v", err)
		}
		exports[p.ImportPath] = p.Export
		if _, local := local(p.ImportPath); local {
			ours = append(ours, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, errors.New("go list gave no export data for " + path)
		}
		return os.Open(file)
	})
	var pkgs []typedPackage
	for _, p := range ours {
		rel, _ := local(p.ImportPath)
		tp := typedPackage{rel: rel, fset: fset, info: &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{},
			Uses:  map[*ast.Ident]types.Object{},
			Defs:  map[*ast.Ident]types.Object{},
		}}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			tp.files = append(tp.files, f)
		}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.ImportPath, fset, tp.files, tp.info); err != nil {
			return nil, fmt.Errorf("type-checking %s: %v", rel, err)
		}
		pkgs = append(pkgs, tp)
	}
	return pkgs, nil
}
