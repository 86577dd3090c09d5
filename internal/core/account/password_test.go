package account

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A password verifies against its own hash only; the hash is salted, names
// its parameters, and a malformed or hostile hash matches nothing.
func TestAPasswordVerifiesOnlyAgainstItsOwnHash(t *testing.T) {
	h1, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPassword("correct horse battery")
	if h1 == h2 || !strings.HasPrefix(h1, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hashes %q and %q: want salted Argon2id in PHC form", h1, h2)
	}
	if !VerifyPassword(h1, "correct horse battery") || VerifyPassword(h1, "correct horse batterY") {
		t.Fatal("verification does not tell the password from another")
	}
	for _, bad := range []string{"", "plain", "$argon2id$v=19$m=99999999,t=2,p=1$c2FsdA$a2V5", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdA$a2V5"} {
		if VerifyPassword(bad, "correct horse battery") {
			t.Errorf("hash %q matched", bad)
		}
	}
}

// Setting the same password again gives a new stamp, so it too ends the
// sessions signed in with the old hash; a stamp does not show its hash.
func TestTheSamePasswordSetAgainGetsANewStamp(t *testing.T) {
	h1, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPassword("correct horse battery")
	s1, s2 := PasswordStamp(h1), PasswordStamp(h2)
	if s1 == s2 || s1 != PasswordStamp(h1) || s1 == "" || strings.Contains(h1, s1) {
		t.Fatalf("stamps %q and %q of hashes %q and %q: want one stable stamp a hash, none alike, none part of its hash", s1, s2, h1, h2)
	}
}

// New passwords have 10 to 256 characters; roles map to token scopes.
func TestPasswordLengthAndRoleScopes(t *testing.T) {
	if CheckPassword("short") == nil || CheckPassword(strings.Repeat("x", MaxPassword+1)) == nil || CheckPassword("ten chars!") != nil {
		t.Fatal("password length bounds")
	}
	want := map[Role]string{Viewer: "read", Operator: "operate", Owner: "admin"}
	for r, s := range want {
		if string(r.Scope()) != s {
			t.Errorf("role %s acts with scope %s, want %s", r, r.Scope(), s)
		}
	}
	if _, err := ParseRole("admin"); err == nil {
		t.Fatal("a scope name was taken as a role")
	}
}

// A password refused for its length says how many characters it has in
// the right number: one character is not "1 characters".
func TestATooShortPasswordCountsItsCharactersInTheRightNumber(t *testing.T) {
	for p, want := range map[string]string{"x": "has 1 character;", "xy": "has 2 characters;"} {
		if err := CheckPassword(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckPassword(%q) = %v, want it to say it %s", p, err, want)
		}
	}
}

// A new password may not hold its user's name, unless the name is too
// short to guess from: a user named "li" may still choose "violin-sunset".
func TestAPasswordMayHoldANameTooShortToGuessFrom(t *testing.T) {
	if err := CheckNewPassword("li", "violin-sunset"); err != nil {
		t.Fatalf("a two-letter name inside a password: %v; want it accepted", err)
	}
	if err := CheckNewPassword("lin", "violin-sunset"); err == nil || !strings.Contains(err.Error(), "contains the user name") {
		t.Fatalf("a three-letter name inside a password: %v; want it refused", err)
	}
}

// A common password with letters written as the digits or symbols that
// usually stand for them is refused as the word is, with or without
// digits and symbols at its end; a password that only has such
// characters in it is not.
func TestCommonPasswordsWithStandInsForLettersAreRefused(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"pa55word2024", "P@$$w0rd!!", "dr@g0n12345", "m0nk3y12345", "5uperman!!", "qw3rty!2345", "sh4d0w12345", "l3tm3in2026", "1qaz2wsx!!"} {
		if err := CheckNewPassword("olivia", p); qlerror.ReasonOf(err) != RefusalPasswordCommon {
			t.Errorf("CheckNewPassword(%q) = %v, want it refused as a common password", p, err)
		}
	}
	for _, p := range []string{"c0rrect h0rse b4ttery", "5 green m00ns r1se"} {
		if err := CheckNewPassword("olivia", p); err != nil {
			t.Errorf("CheckNewPassword(%q) = %v, want it taken", p, err)
		}
	}
}
