package account

import (
	"regexp"
	"strings"
	"testing"
)

// A setup code is eight groups of four unambiguous characters, is
// accepted however a person types its case and separators, is spent by
// its first right use, comes back after a store failure only while
// nothing closed it, and never after.
func TestASetupCodeIsSpentOnceAndClosedForGood(t *testing.T) {
	t.Parallel()
	c, code := NewSetupCode()
	if !regexp.MustCompile(`^([A-Z2-7]{4}-){7}[A-Z2-7]{4}$`).MatchString(code) {
		t.Fatalf("setup code %q is not eight groups of four", code)
	}
	if _, other := NewSetupCode(); other == code {
		t.Fatalf("two codes drawn alike: %q", code)
	}
	wrong := code[:len(code)-1] + "A"
	if strings.HasSuffix(code, "A") {
		wrong = code[:len(code)-1] + "B"
	}
	if c.Spend(wrong) || !c.Open() {
		t.Fatal("a wrong code was spent")
	}
	typed := strings.ToLower(strings.ReplaceAll(code, "-", " "))
	if !c.Spend(typed) {
		t.Fatalf("the code typed as %q was refused", typed)
	}
	if c.Open() || c.Spend(code) {
		t.Fatal("a spent code is open or spent again")
	}
	c.Unspend(code)
	if !c.Open() || !c.Spend(code) {
		t.Fatal("a code given back after a store failure is not spendable again")
	}
	c.Close()
	c.Unspend(code)
	if c.Open() || c.Spend(code) {
		t.Fatal("a closed code came back")
	}
}
