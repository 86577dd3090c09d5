// Package task is the Task aggregate: a head plus append-only immutable
// revisions of the `qinglong/command@v1` spec, and the execution revision (the
// immutable plan a worker runs) derived from each enabled revision.
package task

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// SpecKind names the only task kind so far.
const SpecKind = "qinglong/command@v1"

// Limits of a command spec.
const (
	MaxArgs        = 256
	MaxArgLen      = 32 << 10
	MaxEnv         = 256
	MaxEnvValueLen = 32 << 10
	// MaxScriptLen is the longest script Linux passes to the shell: a
	// script runs as `sh -c SCRIPT`, and the kernel refuses to start a
	// program with one argument of 128 KiB or more, its NUL included
	// (MAX_ARG_STRLEN). A longer script would be accepted by apply and
	// then fail every Run with "argument list too long".
	MaxScriptLen = 128<<10 - 1
	// MaxExecSize bounds what a command starts with, as Linux counts it
	// against ARG_MAX (Command.ExecSize). Linux lets a program start with
	// a quarter of its stack limit: 2 MiB under the default 8 MiB (ulimit
	// -s 8192), 1 MiB under 4 MiB. A task may take half of the latter,
	// the other half left to the base environment (PATH, HOME, …), the
	// variables QingLong sets and the secrets' values, which only the
	// executor knows. Each argument and variable below its own limit,
	// together they could pass ARG_MAX, be accepted by apply and fail
	// every Run with "argument list too long".
	MaxExecSize     = 512 << 10
	MaxLabels       = 64
	MaxLabelLen     = 256
	MinTimeout      = time.Millisecond
	MaxTimeout      = 365 * 24 * time.Hour
	DefaultTimeout  = time.Hour
	maxPathLen      = 4096
	maxSecretRefLen = 128
	// envField is the field of a task's environment, as its refusals
	// name it.
	envField = "task.command.env"
)

// Limits of the ending of a command and of account names.
const (
	MinKillGrace = time.Millisecond
	MaxKillGrace = 10 * time.Minute
	// DefaultKillGrace is how long a command has between SIGTERM and
	// SIGKILL when its task sets no killGrace.
	DefaultKillGrace = 5 * time.Second
	maxAccountLen    = 64
)

// The reasons of a command's refusals of its own (its fields' ranges, sets
// and sizes carry validate's), with the params their sentences may name.
const (
	// RefusalProgramNotAbsolute is a program that is no absolute, clean
	// path: field, value.
	RefusalProgramNotAbsolute qlerror.Reason = "task_program_not_absolute"
	// RefusalDirNotAbsolute is a working directory that is no absolute,
	// clean path: field, value.
	RefusalDirNotAbsolute qlerror.Reason = "task_dir_not_absolute"
	// RefusalEnvName is an environment name of other characters: value.
	RefusalEnvName qlerror.Reason = "task_env_name"
	// RefusalEnvReserved is an environment name starting QL_: value.
	RefusalEnvReserved qlerror.Reason = "task_env_reserved"
	// RefusalSecretRef is a secret reference of other characters: field,
	// value.
	RefusalSecretRef qlerror.Reason = "task_secret_ref" //nolint:gosec // G101: a reason's name, not a credential
	// RefusalLabelKey is a label key of other characters: field, value.
	RefusalLabelKey qlerror.Reason = "task_label_key"
	// RefusalWorkerLabelValue is a placement label value of other
	// characters: field, value.
	RefusalWorkerLabelValue qlerror.Reason = "task_worker_label_value"
	// RefusalAccount is a user or group that is no name or number:
	// field, value.
	RefusalAccount qlerror.Reason = "task_account"
)

// Mode says how the command is started.
type Mode string

const (
	// ModeArgv executes an absolute file with arguments, no shell.
	ModeArgv Mode = "argv"
	// ModeShell runs a script through /bin/sh or /bin/bash.
	ModeShell Mode = "shell"
)

// ReservedEnvPrefix starts the names of the variables the executor sets
// for every attempt (run.Identity.Env); a task's environment may not
// use it, or a task could pass itself off as another run.
const ReservedEnvPrefix = "QL_"

// AllowedShells are the interpreters shell mode may name.
var AllowedShells = []string{"/bin/sh", "/bin/bash"}

// EnvVar is one environment entry: a public value, or a reference to a
// secret that is resolved only at execution time and never stored in clear.
type EnvVar struct {
	Name      string
	Value     string
	SecretRef string
}

// RunAs names the account a command runs as: a user name or numeric uid,
// and optionally a group name or numeric gid (default: the user's primary
// group). The zero value means the executor's default.
type RunAs struct {
	User  string
	Group string
}

// IsZero reports whether no account is named.
func (r RunAs) IsZero() bool { return r == RunAs{} }

// String is user or user:group, the form of the server-wide setting.
func (r RunAs) String() string {
	if r.Group == "" {
		return r.User
	}
	return r.User + ":" + r.Group
}

// Validate checks the shape of the names; whether they exist is only
// known on the machine that runs the command.
func (r RunAs) Validate(field string) error {
	if r.User == "" {
		return invalid("%s.user: is required (a user name or numeric uid)", field).Because(validate.RefusalRequired, "field", field+".user")
	}
	if !accountPattern.MatchString(r.User) || len(r.User) > maxAccountLen {
		return invalid("%s.user: %q must be a user name or numeric uid of 1–%d letters, digits, '_', '.', '-'", field, r.User, maxAccountLen).
			Because(RefusalAccount, "field", field+".user", "value", r.User)
	}
	if r.Group != "" && (!accountPattern.MatchString(r.Group) || len(r.Group) > maxAccountLen) {
		return invalid("%s.group: %q must be a group name or numeric gid of 1–%d letters, digits, '_', '.', '-'", field, r.Group, maxAccountLen).
			Because(RefusalAccount, "field", field+".group", "value", r.Group)
	}
	return nil
}

// ParseRunAs reads user[:group].
func ParseRunAs(s string) RunAs {
	user, group, _ := strings.Cut(s, ":")
	return RunAs{User: user, Group: group}
}

// Command is the `qinglong/command@v1` spec.
type Command struct {
	Mode       Mode
	Path       string   // argv mode: absolute file
	Args       []string // argv mode
	Shell      string   // shell mode: one of AllowedShells
	Script     string   // shell mode
	Env        []EnvVar // kept sorted by Name
	WorkingDir string   // optional, absolute; default: an empty directory per attempt
	TimeoutMs  int64
	// RunAs is optional; zero runs as the executor's default account.
	RunAs RunAs
	// KillGraceMs is the time between SIGTERM and SIGKILL when the
	// command is ended; 0 means DefaultKillGrace.
	KillGraceMs int64
	// Retry and Placement apply on the cluster profile, where workers run
	// commands; single-node profiles store them and ignore them.
	Retry     RetryPolicy
	Placement Placement
}

// KillGrace is the effective grace between SIGTERM and SIGKILL.
func (c Command) KillGrace() time.Duration {
	if c.KillGraceMs == 0 {
		return DefaultKillGrace
	}
	return time.Duration(c.KillGraceMs) * time.Millisecond
}

// Spec is everything a task revision says, apart from identity.
type Spec struct {
	Name    string
	Enabled bool
	Labels  map[string]string
	Command Command
}

var (
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// A secret's name is global, or PROJECT/NAME: a project's name (the
	// object name rule) before the one slash (SecretProject).
	secretRefPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9_.-]*[a-z0-9])?/)?[A-Za-z0-9_.-]+$`)
	labelKeyPattern  = regexp.MustCompile(`^[a-z0-9]([a-z0-9_./-]*[a-z0-9])?$`)
	accountPattern   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
)

// Normalize returns the spec in canonical order (environment sorted by
// name) so equal content always hashes alike.
func (s Spec) Normalize() Spec {
	env := append([]EnvVar(nil), s.Command.Env...)
	sort.Slice(env, func(i, j int) bool { return env[i].Name < env[j].Name })
	s.Command.Env = env
	s.Command.Retry = s.Command.Retry.normalize()
	if len(s.Command.Placement.Labels) == 0 {
		s.Command.Placement.Labels = nil
	}
	if s.Command.TimeoutMs == 0 {
		s.Command.TimeoutMs = DefaultTimeout.Milliseconds()
	}
	return s
}

// Validate checks every field; errors name the field and the limit.
func (s Spec) Validate() error {
	if err := validate.Name("task.name", s.Name); err != nil {
		return err
	}
	if err := CheckLabels(s.Labels); err != nil {
		return err
	}
	return s.Command.validate()
}

func (c Command) validate() error {
	// JSON, the stored form, would replace a byte that is not UTF-8, and
	// the stored revision would then no longer match its digest.
	if field, bad := invalidUTF8(c); bad {
		return invalid("task.command.%s: is not valid UTF-8", field).Because(validate.RefusalNotUTF8, "field", "task.command."+field)
	}
	switch c.Mode {
	case ModeArgv:
		if err := CheckProgram(c.Path); err != nil {
			return err
		}
		if c.Shell != "" || c.Script != "" {
			return invalid("task.command: argv mode takes path and args, not shell or script")
		}
		if err := CheckArgs(c.Args); err != nil {
			return err
		}
	case ModeShell:
		if err := CheckShell(c.Shell); err != nil {
			return err
		}
		if c.Path != "" || len(c.Args) > 0 {
			return invalid("task.command: shell mode takes shell and script, not path or args")
		}
		if err := CheckScript(c.Script); err != nil {
			return err
		}
	default:
		return invalid("task.command.mode: %q is not one of argv, shell", c.Mode)
	}
	if err := CheckWorkingDir(c.WorkingDir); err != nil {
		return err
	}
	if c.TimeoutMs < MinTimeout.Milliseconds() || c.TimeoutMs > MaxTimeout.Milliseconds() {
		return validate.DurationOutOfRangeError("task.command.timeout", time.Duration(c.TimeoutMs)*time.Millisecond, MinTimeout, MaxTimeout)
	}
	if c.KillGraceMs != 0 && (c.KillGraceMs < MinKillGrace.Milliseconds() || c.KillGraceMs > MaxKillGrace.Milliseconds()) {
		return validate.DurationOutOfRangeError("task.command.killGrace", time.Duration(c.KillGraceMs)*time.Millisecond, MinKillGrace, MaxKillGrace)
	}
	if !c.RunAs.IsZero() {
		if err := c.RunAs.Validate("task.command.runAs"); err != nil {
			return err
		}
	}
	if !c.Retry.IsZero() {
		if err := c.Retry.validate("task.command.retry"); err != nil {
			return err
		}
	}
	if err := CheckWorkerLabels("task.command.placement.labels", c.Placement.Labels); err != nil {
		return err
	}
	if err := validateEnv(c.Env); err != nil {
		return err
	}
	return c.CheckExecSize()
}

// CheckArgs checks an argv-mode command's arguments after its program:
// how many, and each one's size and bytes.
func CheckArgs(args []string) error {
	if len(args) > MaxArgs {
		return invalid("task.command.args: %d arguments, the limit is %d", len(args), MaxArgs).Because(validate.RefusalTooMany, "field", "task.command.args", "count", len(args), "limit", MaxArgs)
	}
	for i, a := range args {
		if len(a) > MaxArgLen {
			return invalid("task.command.args[%d]: %d bytes, the limit is %d", i, len(a), MaxArgLen).
				Because(validate.RefusalTooLong, "field", fmt.Sprintf("task.command.args[%d]", i), "size", len(a), "limit", MaxArgLen)
		}
		if strings.ContainsRune(a, 0) {
			return invalid("task.command.args[%d]: contains a NUL byte", i).Because(validate.RefusalNULByte, "field", fmt.Sprintf("task.command.args[%d]", i))
		}
	}
	return nil
}

// CheckScript checks a shell-mode command's script: given, and its size
// and bytes.
func CheckScript(script string) error {
	if strings.TrimSpace(script) == "" {
		return invalid("task.command.script: is required in shell mode").Because(validate.RefusalRequired, "field", "task.command.script")
	}
	if len(script) > MaxScriptLen {
		return invalid("task.command.script: %d bytes, the limit is %d, the longest argument Linux starts a shell with; keep a longer script in a file and run that file", len(script), MaxScriptLen).
			Because(validate.RefusalTooLong, "field", "task.command.script", "size", len(script), "limit", MaxScriptLen)
	}
	if strings.ContainsRune(script, 0) {
		return invalid("task.command.script: contains a NUL byte").Because(validate.RefusalNULByte, "field", "task.command.script")
	}
	return nil
}

// CheckExecSize checks what starting c takes of ARG_MAX (ExecSize).
func (c Command) CheckExecSize() error {
	if n := c.ExecSize(); n > MaxExecSize {
		return invalid("task.command: starting it takes %d bytes of arguments and environment (each with its NUL and pointer, as Linux counts them), the limit is %d, "+
			"what a task may take of the arguments and environment Linux starts a program with (ARG_MAX); shorten the script, args or env: keep long data in a file and pass its path", n, MaxExecSize).
			Because(validate.RefusalTooLong, "field", "task.command", "size", n, "limit", MaxExecSize)
	}

	return nil
}

// ExecSize is how many bytes of ARG_MAX starting c takes, as Linux counts
// them: every argument (the program's name first) and every variable of
// the task's environment, each with its terminating NUL and the 8-byte
// pointer to it. A secret's value is not known here: its variable counts
// its name alone.
func (c Command) ExecSize() int {
	const ptr = 8
	n := 0
	str := func(s string) { n += len(s) + 1 + ptr }
	if c.Mode == ModeShell {
		str(c.Shell)
		str("-c")
		str(c.Script)
	} else {
		str(c.Path)
		for _, a := range c.Args {
			str(a)
		}
	}
	for _, e := range c.Env {
		str(e.Name + "=" + e.Value)
	}
	return n
}

func validateEnv(env []EnvVar) error {
	if err := CheckEnvList(env); err != nil {
		return err
	}
	for _, e := range env {
		if err := CheckEnvValue(e); err != nil {
			return err
		}
	}
	return nil
}

// CheckEnvList checks a task's environment as a list: how many variables,
// each name, and no name twice; not what each is set to (CheckEnvValue).
func CheckEnvList(env []EnvVar) error { return CheckEnvListOf(envField, env) }

// CheckEnvListOf is CheckEnvList of the environment field names: a task's,
// or its project's (ValidateProjectEnv).
func CheckEnvListOf(field string, env []EnvVar) error {
	if len(env) > MaxEnv {
		return invalid("%s: %d entries, the limit is %d", field, len(env), MaxEnv).Because(validate.RefusalTooMany, "field", field, "count", len(env), "limit", MaxEnv)
	}
	seen := make(map[string]bool, len(env))
	for _, e := range env {
		if err := CheckEnvNameOf(field, e.Name); err != nil {
			return err
		}
		if seen[e.Name] {
			return invalid("%s.%s: defined twice", field, e.Name).Because(validate.RefusalGivenTwice, "field", field, "value", e.Name)
		}
		seen[e.Name] = true
	}
	return nil
}

// CheckEnvValue checks what one environment variable of a task is set to:
// a value, or a reference to a secret, not both.
func CheckEnvValue(e EnvVar) error { return CheckEnvValueOf(envField, e) }

// CheckEnvValueOf is CheckEnvValue of the environment field names.
func CheckEnvValueOf(field string, e EnvVar) error {
	if e.SecretRef != "" {
		if e.Value != "" {
			return invalid("%s.%s: give a value or a secret reference, not both", field, e.Name)
		}
		if !IsSecretName(e.SecretRef) {
			return invalid("%s.%s: secret reference %q must be 1–%d letters, digits, '-', '_', '.', after PROJECT/ for a project's own secret", field, e.Name, e.SecretRef, maxSecretRefLen).
				Because(RefusalSecretRef, "field", field+"."+e.Name, "value", e.SecretRef)
		}
		return nil
	}
	if len(e.Value) > MaxEnvValueLen {
		return invalid("%s.%s: value has %d bytes, the limit is %d", field, e.Name, len(e.Value), MaxEnvValueLen).
			Because(validate.RefusalTooLong, "field", field+"."+e.Name, "size", len(e.Value), "limit", MaxEnvValueLen)
	}
	if strings.ContainsRune(e.Value, 0) {
		return invalid("%s.%s: value contains a NUL byte", field, e.Name).Because(validate.RefusalNULByte, "field", field+"."+e.Name)
	}
	return nil
}

// CheckLabels checks a task's labels: how many, and each key and value.
func CheckLabels(labels map[string]string) error {
	if len(labels) > MaxLabels {
		return invalid("task.labels: %d labels, the limit is %d", len(labels), MaxLabels).Because(validate.RefusalTooMany, "field", "task.labels", "count", len(labels), "limit", MaxLabels)
	}
	for k, v := range labels {
		if len(k) > MaxLabelLen || !labelKeyPattern.MatchString(k) {
			return invalid("task.labels: key %q must be 1–%d lower-case letters, digits, '-', '_', '.', '/'", k, MaxLabelLen).Because(RefusalLabelKey, "field", "task.labels", "value", k)
		}
		if len(v) > MaxLabelLen {
			return invalid("task.labels.%s: value has %d characters, the limit is %d", k, len(v), MaxLabelLen).
				Because(validate.RefusalTooLong, "field", "task.labels."+k, "size", len(v), "limit", MaxLabelLen)
		}
		if !utf8.ValidString(v) {
			return invalid("task.labels.%s: value is not valid UTF-8", k).Because(validate.RefusalNotUTF8, "field", "task.labels."+k)
		}
	}
	return nil
}

// CheckEnvName checks the name of one environment variable of a task.
func CheckEnvName(name string) error { return CheckEnvNameOf(envField, name) }

// CheckEnvNameOf is CheckEnvName of the environment field names.
func CheckEnvNameOf(field, name string) error {
	if !envNamePattern.MatchString(name) {
		return invalid("%s: name %q must match [A-Za-z_][A-Za-z0-9_]*", field, name).Because(RefusalEnvName, "value", name)
	}
	if strings.HasPrefix(name, ReservedEnvPrefix) {
		return invalid("%s: name %q is reserved: QingLong sets the %s* variables (QL_RUN_ID, QL_SCHEDULED_AT, QL_ORIGIN and others) of every run; choose another name", field, name, ReservedEnvPrefix).
			Because(RefusalEnvReserved, "value", name)
	}
	return nil
}

// absPath checks p, the path of field, refusing a relative one for
// notAbs with like, a path of the field's kind, as the example.
func absPath(field, p, like string, notAbs qlerror.Reason) error {
	if p == "" {
		return invalid("%s: is required", field).Because(validate.RefusalRequired, "field", field)
	}
	if len(p) > maxPathLen {
		return invalid("%s: %d bytes, the limit is %d", field, len(p), maxPathLen).Because(validate.RefusalTooLong, "field", field, "size", len(p), "limit", maxPathLen)
	}
	if !path.IsAbs(p) || path.Clean(p) != p {
		return invalid("%s: %q must be an absolute, clean path (like %s)", field, p, like).Because(notAbs, "field", field, "value", p)
	}
	return nil
}

// CheckProgram, CheckShell and CheckWorkingDir are the checks of one field
// of a command each, which a definitions file's reader runs on the field
// as it reads it, so a mistake there is reported beside the task's other
// mistakes rather than only once they are mended.

// CheckProgram checks an argv-mode command's program path.
func CheckProgram(path string) error {
	return absPath("task.command.path", path, "/usr/bin/env", RefusalProgramNotAbsolute)
}

// CheckShell checks a shell-mode command's shell.
func CheckShell(shell string) error {
	if allowedShell(shell) {
		return nil
	}
	return invalid("task.command.shell: %q is not allowed; use one of %s", shell, strings.Join(AllowedShells, ", ")).
		Because(validate.RefusalNotOneOf, "field", "task.command.shell", "value", shell, "allowed", strings.Join(AllowedShells, ", "))
}

// CheckWorkingDir checks a command's working directory ("" is none: a
// fresh directory per attempt).
func CheckWorkingDir(dir string) error {
	if dir == "" {
		return nil
	}
	return absPath("task.command.workingDir", dir, "/srv/jobs", RefusalDirNotAbsolute)
}

func allowedShell(s string) bool {
	for _, a := range AllowedShells {
		if s == a {
			return true
		}
	}
	return false
}

func invalid(format string, args ...any) *qlerror.Error {
	return qlerror.New(qlerror.Invalid, format, args...)
}

// IsSecretName reports whether name is a secret's name: the one rule of
// a task's env reference, a notification channel's secret fields and a
// secrets file (`ql secrets set`, PUT /api/v1/secrets/{name}), so no
// secret can be stored under a name no definition can refer to.
func IsSecretName(name string) bool {
	return len(name) <= maxSecretRefLen && secretRefPattern.MatchString(name)
}
