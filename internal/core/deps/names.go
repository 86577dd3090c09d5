// Package deps is a single node's dependencies (the 青龙 panel's 依赖管理):
// the Node.js, Python 3 and Linux packages an admin declares for the
// scripts, checked per ecosystem before any installer sees them, and the
// installer commands that install or remove them, run as Runs of a task
// of the dependencies project.
package deps

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Kind is an ecosystem of packages.
type Kind string

// The kinds, in the order the page shows them.
const (
	Node   Kind = "node"
	Python Kind = "python"
	Linux  Kind = "linux"
)

// Kinds lists every kind.
var Kinds = []Kind{Node, Python, Linux}

// The reasons of the refusals of a package or an install.
const (
	RefusalKindUnknown      qlerror.Reason = "dependency_kind_unknown"
	RefusalNameInvalid      qlerror.Reason = "dependency_name_invalid"
	RefusalNone             qlerror.Reason = "dependency_none"
	RefusalNoneDeclared     qlerror.Reason = "dependency_none_declared"
	RefusalTooMany          qlerror.Reason = "dependency_too_many"
	RefusalMissing          qlerror.Reason = "dependency_missing"
	RefusalInstallerMissing qlerror.Reason = "dependency_installer_missing"
	RefusalNeedsRoot        qlerror.Reason = "dependency_needs_root"
	RefusalProjectTaken     qlerror.Reason = "dependency_project_taken"
)

// Limits: the longest specifier a package may be written with, and the
// most one form may name (a command line of thousands of names is a
// mistake, not a list).
const (
	MaxSpec  = 214
	MaxNames = 100
)

// Package is one declared package: Name is its name, the key it is
// declared, reinstalled and removed by; Spec is what the installer is
// given (the name with a version or extras).
type Package struct {
	Kind Kind
	Name string
	Spec string
}

// ParseKind checks a kind's name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", qlerror.New(qlerror.Invalid, "dependency type %q is not one of node, python, linux", s).Because(RefusalKindUnknown, "kind", s)
}

// Patterns of a specifier per kind. None may begin with '-', so that no
// specifier is taken by an installer for an option, and none holds a
// space, quote, '$', ';', '|', '&' or a path: each is one word an
// installer reads as one package.
var (
	// npm: an optionally scoped lower-case name, then an optional
	// @version, tag or range (1.2.3, ^1.2, latest, >=1 <2 written without
	// the space is refused: write one range word).
	npmSpec = regexp.MustCompile(`^((@[a-z0-9][a-z0-9._~-]*)/)?[a-z0-9][a-z0-9._~-]*(@[A-Za-z0-9.^~<>=*+_-]+)?$`)
	// pip: a requirement specifier without URL or marker: a name,
	// optional [extras], optional comparisons joined by commas.
	pipSpec = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(\[[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*\])?((===|==|~=|!=|>=|<=|<|>)[A-Za-z0-9.*+!_-]+(,(===|==|~=|!=|>=|<=|<|>)[A-Za-z0-9.*+!_-]+)*)?$`)
	// apk and apt: a lower-case name, an optional =version.
	linuxSpec = regexp.MustCompile(`^[a-z0-9][a-z0-9+._-]*(=[A-Za-z0-9.+~:_-]+)?$`)
)

// Examples says what a specifier of kind k looks like: the {examples} of
// a refusal of a specifier.
func Examples(k Kind) string { return examples[k] }

// The why of a dependency_name_invalid refusal: a fixed set, which a
// translation says in its own words.
const (
	WhyTooLong  = "is longer than 214 characters"
	WhyNotAName = "is not a package name this installer takes"
)

// examples say per kind what a specifier looks like.
var examples = map[Kind]string{
	Node:   "axios, @scope/name or name@1.2.3",
	Python: "requests, requests==2.31.0, requests>=2 or requests[socks]",
	Linux:  "curl or curl=8.5.0-r0",
}

// Parse checks spec, one package of kind k, and returns it with its name.
func Parse(k Kind, spec string) (Package, error) {
	bad := func(why string) error {
		return qlerror.New(qlerror.Invalid, "%s package %q %s; write one package per word, such as %s", k, spec, why, examples[k]).
			Because(RefusalNameInvalid, "kind", string(k), "spec", spec, "why", why, "examples", examples[k])
	}
	if len(spec) > MaxSpec {
		return Package{}, bad(WhyTooLong)
	}
	var pattern *regexp.Regexp
	switch k {
	case Node:
		pattern = npmSpec
	case Python:
		pattern = pipSpec
	case Linux:
		pattern = linuxSpec
	default:
		return Package{}, qlerror.New(qlerror.Invalid, "dependency type %q is not one of node, python, linux", k).Because(RefusalKindUnknown, "kind", string(k))
	}
	if !pattern.MatchString(spec) {
		return Package{}, bad(WhyNotAName)
	}
	return Package{Kind: k, Name: nameOf(k, spec), Spec: spec}, nil
}

// nameOf is the name of a checked specifier: without its version,
// extras or comparisons; a Python name normalised as pip compares them.
func nameOf(k Kind, spec string) string {
	switch k {
	case Node:
		if i := strings.LastIndex(spec, "@"); i > 0 {
			return spec[:i]
		}
	case Python:
		end := strings.IndexAny(spec, "[=~!<>")
		if end < 0 {
			end = len(spec)
		}
		return strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(spec[:end]))
	case Linux:
		name, _, _ := strings.Cut(spec, "=")
		return name
	}
	return spec
}

// ParseList checks the packages of kind k a form lists, separated by
// spaces, commas or lines; the same name twice keeps the last.
func ParseList(k Kind, text string) ([]Package, error) {
	if _, err := ParseKind(string(k)); err != nil {
		return nil, err
	}
	words := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if k == Python {
		// A comma joins the comparisons of one requirement (x>=1,<2) and
		// the extras of one (x[a,b]).
		words = strings.Fields(text)
	}
	if len(words) == 0 {
		return nil, qlerror.New(qlerror.Invalid, "no %s package was given; write one or more, such as %s", k, examples[k]).Because(RefusalNone, "kind", string(k), "examples", examples[k])
	}
	if len(words) > MaxNames {
		return nil, qlerror.New(qlerror.Invalid, "%d %s packages were given, more than %d at once; add them in parts", len(words), k, MaxNames).
			Because(RefusalTooMany, "kind", string(k), "count", len(words), "max", MaxNames)
	}
	var out []Package
	at := map[string]int{}
	for _, w := range words {
		p, err := Parse(k, w)
		if err != nil {
			return nil, err
		}
		if i, ok := at[p.Name]; ok {
			out[i] = p
			continue
		}
		at[p.Name] = len(out)
		out = append(out, p)
	}
	return out, nil
}

// NotDeclared refuses a change of p, which is not declared.
func NotDeclared(p Package) error {
	return qlerror.New(qlerror.NotFound, "%s package %s is not declared here; the Dependencies page lists those that are", p.Kind, p.Name).
		Because(RefusalMissing, "kind", string(p.Kind), "name", p.Name)
}

// NoneDeclared refuses an install of every package of kind k, none being
// declared.
func NoneDeclared(k Kind) error {
	return qlerror.New(qlerror.Invalid, "no %s package is declared here, so there is nothing to install; add one first", k).
		Because(RefusalNoneDeclared, "kind", string(k))
}

// The causes of a dependency_project_taken refusal, its {cause}: a fixed
// set, which a translation says in its own words.
const (
	// TakenConcurrent: the project lets several Runs run at once
	// ({runs}).
	TakenConcurrent = "concurrent"
	// TakenUncapped: the project caps no Runs (maxRunning: 0).
	TakenUncapped = "uncapped"
	// TakenUnlabelled: its task of an installer's name ({task}) lacks
	// the page's label ({label}).
	TakenUnlabelled = "unlabelled"
)

// ProjectTaken refuses a change whose project, dependencies, is not the
// page's to publish in, saying why: someone's own project of that name
// (its cap, or a task of an installer's name without the page's label),
// the cause one of the Taken causes and params what it names.
func ProjectTaken(cause, why string, params ...any) error {
	return qlerror.New(qlerror.FailedPrecondition, "the project %s holds the Dependencies page's installers, and this one is not the page's: %s; "+
		"rename your project (or that task), or give the project maxRunning: 1 and the task the label, then try again", ProjectName, why).
		Because(RefusalProjectTaken, append([]any{"project", ProjectName, "why", why, "cause", cause}, params...)...)
}
