package repocheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// attrList is a list of a log line's attributes as slog reads them: a
// string is a key whose value follows, an slog.Attr stands alone.
type attrList []ast.Expr

// logAttrs returns every list of attributes the code of pkg gives a log
// line: the arguments after a *slog.Logger method's message and those of
// its With, the key and value of each slog.String, slog.Int… constructor,
// the arguments of a helper of this module that takes ...any and returns
// them as attributes, and what builds a slice those calls spread — a
// literal, an append, a variable assigned either, a function returning
// one — followed back through the package, and into the functions of
// this module named in built (by types.Func.FullName) that return one. It
// adds to built the functions of other packages whose results pkg spreads.
func logAttrs(pkg typedPackage, built map[string]bool) []attrList {
	info := pkg.info
	var lists []attrList
	spread := map[types.Object]bool{}
	var build func(e ast.Expr)
	build = func(e ast.Expr) {
		switch x := ast.Unparen(e).(type) {
		case *ast.CompositeLit:
			lists = append(lists, x.Elts)
		case *ast.Ident:
			if o := info.Uses[x]; o != nil {
				spread[o] = true
			}
		case *ast.CallExpr:
			if isAppend(info, x) {
				build(x.Args[0])
				if x.Ellipsis == token.NoPos {
					lists = append(lists, x.Args[1:])
				} else if len(x.Args) == 2 {
					build(x.Args[1])
				}
			} else if fn, ok := callee(info, x).(*types.Func); ok {
				spread[fn] = true
				if rel, ours := local(fn.Pkg().Path()); ours && rel != pkg.rel {
					built[fn.FullName()] = true
				}
			}
		}
	}
	for _, f := range pkg.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			args, ok := attrArgs(info, call)
			if !ok || len(args) == 0 {
				return true
			}
			if call.Ellipsis == token.NoPos {
				lists = append(lists, args)
				return true
			}
			lists = append(lists, args[:len(args)-1])
			build(args[len(args)-1])
			return true
		})
	}
	// Follow the spread slices back to what builds them until no new one
	// turns up: attrs := append(base, …) spreads base too.
	seen := map[ast.Node]bool{}
	for before := -1; before != len(spread); {
		before = len(spread)
		for _, f := range pkg.files {
			ast.Inspect(f, func(n ast.Node) bool {
				if seen[n] {
					return true
				}
				switch x := n.(type) {
				case *ast.AssignStmt:
					for i, lhs := range x.Lhs {
						if id, ok := lhs.(*ast.Ident); ok && i < len(x.Rhs) && len(x.Lhs) == len(x.Rhs) && spread[objectOf(info, id)] {
							seen[n] = true
							build(x.Rhs[i])
						}
					}
				case *ast.ValueSpec:
					for i, id := range x.Names {
						if i < len(x.Values) && spread[info.Defs[id]] {
							seen[n] = true
							build(x.Values[i])
						}
					}
				case *ast.FuncDecl:
					if fn, _ := info.Defs[x.Name].(*types.Func); x.Body != nil && fn != nil && (spread[fn] || built[fn.FullName()]) {
						seen[n] = true
						ast.Inspect(x.Body, func(m ast.Node) bool {
							if _, lit := m.(*ast.FuncLit); lit {
								return false
							}
							if r, ok := m.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
								build(r.Results[0])
							}
							return true
						})
					}
				}
				return true
			})
		}
	}
	return lists
}

// attrArgs returns the arguments of call that are log attributes, if call
// takes some.
func attrArgs(info *types.Info, call *ast.CallExpr) ([]ast.Expr, bool) {
	fn, _ := callee(info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return nil, false
	}
	sig := fn.Signature()
	if fn.Pkg().Path() == "log/slog" {
		if sig.Results().Len() == 1 && isSlogType(sig.Results().At(0).Type(), "Attr") {
			return call.Args, true // slog.String(key, value), slog.Group(key, args...)
		}
		if recv := sig.Recv(); recv != nil && isSlogType(recv.Type(), "Logger") && fn.Name() == "With" {
			return call.Args, true // attributes of every line the logger writes
		}
		if recv := sig.Recv(); (recv == nil || isSlogType(recv.Type(), "Logger")) && logMethods[fn.Name()] {
			for i := 0; i < sig.Params().Len(); i++ {
				if sig.Params().At(i).Name() == "msg" && i+1 <= len(call.Args) {
					return call.Args[i+1:], true
				}
			}
		}
		return nil, false
	}
	if _, ours := local(fn.Pkg().Path()); ours && sig.Variadic() && sig.Results().Len() == 1 && isAttrSlice(sig.Results().At(0).Type()) {
		if last := sig.Params().Len() - 1; last < len(call.Args) {
			return call.Args[last:], true
		}
	}
	return nil, false
}

// callee returns the function or method call calls by name, if any.
func callee(info *types.Info, call *ast.CallExpr) types.Object {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		return info.Uses[f.Sel]
	case *ast.Ident:
		return info.Uses[f]
	}
	return nil
}

func objectOf(info *types.Info, id *ast.Ident) types.Object {
	if o := info.Defs[id]; o != nil {
		return o
	}
	return info.Uses[id]
}

func isAppend(info *types.Info, call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || len(call.Args) == 0 {
		return false
	}
	_, builtin := info.Uses[id].(*types.Builtin)
	return builtin && id.Name == "append"
}

// isAttrSlice reports whether t is []any or []slog.Attr.
func isAttrSlice(t types.Type) bool {
	s, ok := types.Unalias(t).(*types.Slice)
	if !ok {
		return false
	}
	if i, ok := types.Unalias(s.Elem()).(*types.Interface); ok && i.Empty() {
		return true
	}
	return isSlogType(s.Elem(), "Attr")
}

func isSlogType(t types.Type, name string) bool {
	return isNamed(t, "log/slog", name)
}

func isDuration(t types.Type) bool { return isNamed(t, "time", "Duration") }

func isNamed(t types.Type, pkg, name string) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

func isString(t types.Type) bool {
	b, ok := types.Unalias(t).(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// pairs calls each with every key of l whose spelling is a constant, and
// the value after it (nil when none follows).
func (l attrList) pairs(info *types.Info, each func(key string, keyExpr, value ast.Expr)) {
	for i := 0; i < len(l); i++ {
		tv := info.Types[l[i]]
		if tv.Type == nil || !isString(tv.Type.Underlying()) {
			continue // an slog.Attr, or a value slog would report as !BADKEY
		}
		var value ast.Expr
		if i+1 < len(l) {
			value = l[i+1]
		}
		if tv.Value != nil {
			each(strings.Trim(tv.Value.ExactString(), `"`), l[i], value)
		}
		i++
	}
}

// everyLogAttrs returns the attribute lists of each package of pkgs, in
// their order, following the slices one package spreads into a function of
// another that builds them (run.FinishedAttrs) until no new one turns up.
func everyLogAttrs(pkgs []typedPackage) [][]attrList {
	built := map[string]bool{}
	for {
		before := len(built)
		lists := make([][]attrList, len(pkgs))
		for i, p := range pkgs {
			lists[i] = logAttrs(p, built)
		}
		if len(built) == before {
			return lists
		}
	}
}
