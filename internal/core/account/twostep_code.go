package account

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// The TOTP every authenticator app reads from an otpauth:// URI: six
// digits a 30-second step, HMAC-SHA1 (RFC 6238's defaults; apps that
// ignore the URI's parameters use them anyway).
const (
	TwoStepPeriod = 30
	// TwoStepSkew is how many steps a code may be off either way, for a
	// phone whose clock is a little off or a code typed as it changed.
	TwoStepSkew = 1
	// TwoStepIssuer names the server in the app's list.
	TwoStepIssuer = "QingLong"
	// RecoveryCodes is how many recovery codes turning two-step on gives.
	RecoveryCodes = 10
)

var totpOpts = totp.ValidateOpts{Period: TwoStepPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// NewTwoStepSecret draws a new 160-bit TOTP secret, in base32.
func NewTwoStepSecret(name string) (string, error) {
	k, err := totp.Generate(totp.GenerateOpts{Issuer: TwoStepIssuer, AccountName: name, Period: TwoStepPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return "", err
	}
	return k.Secret(), nil
}

// TwoStepKey is the key of secret for user name: its otpauth:// URI
// (String) and QR code (Image) are what an app scans.
func TwoStepKey(name, secret string) (*otp.Key, error) {
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil {
		return nil, err
	}
	return totp.Generate(totp.GenerateOpts{Issuer: TwoStepIssuer, AccountName: name, Period: TwoStepPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1, Secret: raw})
}

// TwoStepStep is the time step of at.
func TwoStepStep(at time.Time) int64 {
	return at.Unix() / TwoStepPeriod
}

// MatchTwoStepCode returns the time step within TwoStepSkew of at whose
// code is code (spaces left out), the newest first; false when none is.
// Each step's code is compared in constant time.
func MatchTwoStepCode(secret, code string, at time.Time) (int64, bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != otp.DigitsSix.Length() {
		return 0, false
	}
	now := TwoStepStep(at)
	for step := now + TwoStepSkew; step >= now-TwoStepSkew; step-- {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*TwoStepPeriod, 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, true
		}
	}
	return 0, false
}

// IsTwoStepCodeShape reports whether s, spaces left out, is a six-digit
// code rather than a recovery code.
func IsTwoStepCodeShape(s string) bool {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	return len(s) == 6 && strings.Trim(s, "0123456789") == ""
}

// recoveryAlphabet leaves out the letters read as digits (0, 1, 8, l, o).
const recoveryAlphabet = "2345679abcdefghjkmnpqrstuvwxyz"

// NewRecoveryCodes draws RecoveryCodes codes of ten characters from
// recoveryAlphabet (49 bits each), shown as xxxxx-xxxxx, and their
// digests, which are all that is stored.
func NewRecoveryCodes() (codes, digests []string) {
	for range RecoveryCodes {
		b := make([]byte, 10)
		for i := range b {
			b[i] = recoveryAlphabet[randIndex(len(recoveryAlphabet))]
		}
		code := string(b[:5]) + "-" + string(b[5:])
		codes, digests = append(codes, code), append(digests, RecoveryDigest(code))
	}
	return codes, digests
}

// randIndex is a uniform index below n (n < 256) from crypto/rand.
func randIndex(n int) int {
	var b [1]byte
	for {
		_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
		if int(b[0]) < 256-256%n {
			return int(b[0]) % n
		}
	}
}

// RecoveryDigest is the stored form of a recovery code: the SHA-256 of
// the code in lower case without dashes or spaces, in hex. A plain hash
// is enough: a code has 49 random bits, no password's few.
func RecoveryDigest(code string) string {
	norm := strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(code)))
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:])
}
