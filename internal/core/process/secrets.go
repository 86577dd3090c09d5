package process

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Secrets is the local secret store: a JSON object of name → value in one
// file readable by its owner only (mode 0600). It is read at each attempt
// start, so edits apply to the next run without a restart. Nothing here
// ever puts a value into an error message.
type Secrets struct {
	Path string
	// SetBy, when set, is the command that sets secret name in this file
	// (`ql secrets set NAME --data-dir DIR`): a secret found missing is
	// refused with it, so the fix can be pasted as the message prints it.
	SetBy func(name string) string
	// SetOn, when set, is where SetBy's command is run ("on every
	// replica"): the refusal is read away from that machine, in a Run's
	// log or a notification's last error, where a bare command would be
	// run on the wrong host.
	SetOn string
}

// MinSecretLen is the shortest value accepted as a secret: masking a
// shorter one would hide unrelated output and tell a reader where the
// value occurs.
const MinSecretLen = 4

// Missing returns the names of refs the file does not define (all of
// them when there is no file), for a warning before any command needs
// them. A file that exists but that this process cannot use is a
// *SecretsFileError: where this process is the one that runs the
// commands, every Run needing a secret would fail for it.
func (s Secrets) Missing(refs []string) ([]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	all, err := s.load()
	if errors.Is(err, os.ErrNotExist) {
		return refs, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ref := range refs {
		if _, ok := all[ref]; !ok {
			out = append(out, ref)
		}
	}
	return out, nil
}

// SecretsCause says, stably, why a secrets file that exists cannot be
// used by the user reading it: a note about it is said by cause in each
// language.
type SecretsCause string

// The causes of a SecretsFileError.
const (
	// SecretsDenied is a file the reading user may not open or read.
	SecretsDenied SecretsCause = "denied"
	// SecretsOwner is a file owned by another user than the reading one.
	SecretsOwner SecretsCause = "owner"
	// SecretsMode is a file group or others may access.
	SecretsMode SecretsCause = "mode"
	// SecretsNotRegular is a directory or another non-regular file.
	SecretsNotRegular SecretsCause = "not_regular"
	// SecretsNotJSON is a file that is not a JSON object of strings.
	SecretsNotJSON SecretsCause = "not_json"
)

// SecretsFileError is a secrets file that exists but cannot be used by
// the user reading it: every secret it would hold is then unavailable.
// Cause is one of the Secrets* causes; Params are what its sentence
// names ("owner" and "uid" of SecretsOwner, "mode" of SecretsMode,
// "error", the system's words, of SecretsDenied), never a value or any of
// the file's content.
type SecretsFileError struct {
	Path   string
	Cause  SecretsCause
	Params map[string]string
	err    error
}

func (e *SecretsFileError) Error() string { return e.err.Error() }

func (e *SecretsFileError) Unwrap() error { return e.err }

// The reasons of a secrets file that exists but is refused for what it
// is, which the file's owner fixes (chmod, chown, its content). A file the
// reader may not open at all (SecretsDenied) is a failure of the
// machine's, with no reason of its own.
const (
	RefusalSecretsFileMode       qlerror.Reason = "secrets_file_mode" //nolint:gosec // G101: a reason code, not a credential
	RefusalSecretsFileOwner      qlerror.Reason = "secrets_file_owner"
	RefusalSecretsFileNotRegular qlerror.Reason = "secrets_file_not_regular"
	RefusalSecretsFileNotJSON    qlerror.Reason = "secrets_file_not_json"
)

var secretsFileReasons = map[SecretsCause]qlerror.Reason{
	SecretsMode: RefusalSecretsFileMode, SecretsOwner: RefusalSecretsFileOwner,
	SecretsNotRegular: RefusalSecretsFileNotRegular, SecretsNotJSON: RefusalSecretsFileNotJSON,
}

// fileError is the SecretsFileError of s's file for cause, err the error
// a run or a notification refused for it reports; a cause the file's
// owner fixes gives err its reason and params.
func (s Secrets) fileError(cause SecretsCause, params map[string]string, err error) error {
	var qe *qlerror.Error
	if r, ok := secretsFileReasons[cause]; ok && errors.As(err, &qe) {
		qe.Reason = r
		qe.Params = map[string]string{"path": s.Path}
		maps.Copy(qe.Params, params)
	}
	return &SecretsFileError{Path: s.Path, Cause: cause, Params: params, err: err}
}

// load reads the whole file after checking its owner and mode; a missing
// file is os.ErrNotExist, any other that cannot be used a
// *SecretsFileError.
func (s Secrets) load() (map[string]string, error) {
	return s.loadOwnedBy(os.Geteuid())
}

// loadOwnedBy is load for a file that must belong to uid: root editing
// the server's file checks it against the server's user, not itself.
func (s Secrets) loadOwnedBy(uid int) (map[string]string, error) {
	// O_NOFOLLOW: a link is refused, not followed. The checks below are
	// made on what is opened, so a followed link would still be checked,
	// but the file would then be any of this user's private files that
	// whoever can write the link's directory points at, and every edit
	// (`ql secrets set`) replaces the link with a file by its rename, so
	// a link would silently stop being one at the first edit.
	f, err := os.OpenFile(s.Path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, s.fileError(SecretsNotRegular, nil, qlerror.New(qlerror.FailedPrecondition,
			"secrets file %s is a symbolic link, which is not followed: replace the link with the file itself, mode 0600, owned by the user that reads it", s.Path))
	}
	if err != nil {
		return nil, s.fileError(SecretsDenied, map[string]string{"error": syscallText(err)}, qlerror.Wrap(qlerror.Unavailable, err, "read secrets file %s", s.Path))
	}
	defer f.Close() //nolint:errcheck // read only
	info, err := f.Stat()
	if err != nil {
		return nil, s.fileError(SecretsDenied, map[string]string{"error": syscallText(err)}, qlerror.Wrap(qlerror.Unavailable, err, "read secrets file %s", s.Path))
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return nil, s.fileError(SecretsOwner, map[string]string{"owner": strconv.FormatUint(uint64(st.Uid), 10), "uid": strconv.Itoa(uid)},
			qlerror.New(qlerror.FailedPrecondition, "secrets file %s is owned by %s, not by the user that reads it here (%s), so another account could have written what it holds; "+
				"run chown %d %s, or run this as %s", s.Path, accountName(int(st.Uid)), accountName(uid), uid, s.Path, accountName(int(st.Uid))))
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, s.fileError(SecretsMode, map[string]string{"mode": fmt.Sprintf("%04o", info.Mode().Perm())},
			qlerror.New(qlerror.FailedPrecondition, "secrets file %s is accessible by group or others (mode %04o); run chmod 600 %s", s.Path, info.Mode().Perm(), s.Path))
	}
	if !info.Mode().IsRegular() {
		return nil, s.fileError(SecretsNotRegular, nil, qlerror.New(qlerror.FailedPrecondition, "secrets file %s is not a regular file", s.Path))
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, s.fileError(SecretsDenied, map[string]string{"error": syscallText(err)}, qlerror.Wrap(qlerror.Unavailable, err, "read secrets file %s", s.Path))
	}
	var all map[string]string
	if err := json.Unmarshal(data, &all); err != nil {
		// The decoder's error is not wrapped: its message quotes the
		// character it stopped at ("invalid character 'x'"), which may be
		// one of a secret's, and this error reaches a Run's log, the
		// server's log and the API.
		return nil, s.fileError(SecretsNotJSON, nil, qlerror.New(qlerror.FailedPrecondition,
			"secrets file %s is not a JSON object of string values: %s; fix it to the shape {\"name\": \"value\"}", s.Path, notJSONProblem(data, err)))
	}
	return all, nil
}

// notJSONProblem says where a secrets file the decoder refused with err
// goes wrong, quoting none of its bytes: a byte offset for a syntax error,
// the JSON kind and the names of the keys whose values are not strings
// for a type error (json.UnmarshalTypeError names neither for a map).
func notJSONProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("its JSON breaks off at byte %d of %d", syn.Offset, len(data))
	}
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) {
		return "it cannot be decoded as JSON"
	}
	// Value is a JSON kind, followed for some numbers by their digits.
	kind, _, _ := strings.Cut(typ.Value, " ")
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return fmt.Sprintf("it holds a JSON %s, not an object", kind)
	}
	var keys []string
	for k, v := range fields {
		if v[0] != '"' && string(v) != "null" {
			keys = append(keys, strconv.Quote(k))
		}
	}
	slices.Sort(keys)
	return fmt.Sprintf("the value of %s is not a JSON string", strings.Join(keys, ", "))
}

// syscallText is the system's words of err without the path and the
// operation the *fs.PathError around them names ("permission denied").
func syscallText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// setIt says how to set secret name: SetBy's command, and where when
// SetOn says.
func (s Secrets) setIt(name string) string {
	if s.SetOn == "" {
		return fmt.Sprintf("set it with `%s`", s.SetBy(name))
	}
	return fmt.Sprintf("set it with `%s` %s", s.SetBy(name), s.SetOn)
}

// Resolve returns the values of refs. A missing file is an empty store.
// The file is checked on the descriptor it is read from — owner (this
// server's user) and mode (no group or other access) — so it cannot be
// swapped between the check and the read.
func (s Secrets) Resolve(refs []string) (map[string]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	all, err := s.load()
	if errors.Is(err, os.ErrNotExist) {
		if s.SetBy != nil {
			return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q is not defined: %s does not exist; %s, which creates the file", refs[0], s.Path, s.setIt(refs[0]))
		}
		return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q is not defined: %s does not exist; create it as a JSON object {\"%s\": \"...\"} with mode 0600", refs[0], s.Path, refs[0])
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(refs))
	for _, ref := range refs {
		v, ok := all[ref]
		if !ok {
			if s.SetBy != nil {
				return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q is not defined in %s; %s", ref, s.Path, s.setIt(ref))
			}
			return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q is not defined in %s; add it", ref, s.Path)
		}
		if len(v) < MinSecretLen {
			return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q in %s is shorter than %d bytes: it cannot be masked in output without hiding unrelated text; use a longer value, or a plain env value if it is not secret", ref, s.Path, MinSecretLen)
		}
		out[ref] = v
	}
	return out, nil
}

// accountName names uid as a message says it: "user nobody (uid 65534)",
// or "uid 1234" for an id no account has.
func accountName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("user %s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}
