package account

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Argon2id parameters of new hashes: OWASP's 19 MiB, two passes, one
// lane — tens of milliseconds a guess, and a bounded memory cost per
// concurrent sign-in. A stored hash names its own parameters, so raising
// them later keeps old hashes valid.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	saltLen      = 16
)

// Password length bounds, in characters: long enough to resist guessing
// at the console's throttled rate, short enough that hashing stays cheap.
const (
	MinPassword = 10
	MaxPassword = 256
)

// CheckPassword says what is wrong with a new password.
func CheckPassword(p string) error {
	n := utf8.RuneCountInString(p)
	switch {
	case !utf8.ValidString(p):
		return qlerror.New(qlerror.Invalid, "the password is not valid UTF-8")
	case n < MinPassword:
		return qlerror.New(qlerror.Invalid, "the password has %s; use at least %d", plural.Count(n, "character", "characters"), MinPassword)
	case n > MaxPassword:
		return qlerror.New(qlerror.Invalid, "the password has %d characters; use at most %d", n, MaxPassword)
	}
	return nil
}

// HashPassword checks a new password and returns its Argon2id hash in the
// PHC string form ($argon2id$v=19$m=…,t=…,p=…$salt$key).
func HashPassword(p string) (string, error) {
	if err := CheckPassword(p); err != nil {
		return "", err
	}
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", qlerror.Wrap(qlerror.Internal, err, "drawing a password salt")
	}
	key := argon2.IDKey([]byte(p), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads, enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// PasswordStamp names one setting of a password without revealing the
// hash: a session keeps the stamp of the hash it signed in with and ends
// once the account's differs. Every hash has its own random salt, so each
// new password, even the same one set again, gets a new stamp.
func PasswordStamp(hash string) string {
	sum := sha256.Sum256([]byte(hash))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// Bounds on a stored hash's parameters, so a corrupt or hostile row cannot
// make one sign-in take the server's memory or minutes.
const (
	maxMemory  = 256 * 1024
	maxTime    = 16
	maxThreads = 16
)

// VerifyPassword reports whether p is the password of hash, comparing in
// constant time. A malformed hash matches nothing.
func VerifyPassword(hash, p string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var v int
	var m, t uint32
	var th uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &th); err != nil || m > maxMemory || t == 0 || t > maxTime || th == 0 || th > maxThreads {
		return false
	}
	enc := base64.RawStdEncoding
	salt, err1 := enc.DecodeString(parts[4])
	key, err2 := enc.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(key) == 0 || len(key) > 64 {
		return false
	}
	got := argon2.IDKey([]byte(p), salt, t, m, th, uint32(len(key))) //nolint:gosec // G115: len(key) ≤ 64, checked above
	return subtle.ConstantTimeCompare(got, key) == 1
}

var dummy = sync.OnceValue(func() string {
	h, _ := HashPassword("no account has this password") // long enough, and rand never fails on supported platforms
	return h
})

// VerifyAbsent spends the time of one verification against a hash no
// password matches, so that an unknown name takes as long to refuse as a
// wrong password.
func VerifyAbsent(p string) {
	VerifyPassword(dummy(), p)
}
