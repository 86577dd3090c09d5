package digest

import "testing"

func TestDigestIsDomainSeparated(t *testing.T) {
	t.Parallel()
	a := New("qinglong/a@v1").String("x", "1").Sum()
	b := New("qinglong/b@v1").String("x", "1").Sum()
	if a == b {
		t.Fatalf("same content in two domains produced one digest %s", a)
	}
}

func TestDigestFieldBoundariesAreUnambiguous(t *testing.T) {
	t.Parallel()
	a := New("d").String("ab", "c").Sum()
	b := New("d").String("a", "bc").Sum()
	if a == b {
		t.Fatal("moving a byte between name and value must change the digest")
	}
	c := New("d").Strings("l", []string{"a", "b"}).Sum()
	d := New("d").Strings("l", []string{"ab"}).Sum()
	if c == d {
		t.Fatal("list element boundaries must be part of the digest")
	}
}

func TestDigestMapOrderIndependent(t *testing.T) {
	t.Parallel()
	m1 := map[string]string{"a": "1", "b": "2", "c": "3"}
	m2 := map[string]string{"c": "3", "a": "1", "b": "2"}
	for i := 0; i < 20; i++ {
		if New("d").Map("m", m1).Sum() != New("d").Map("m", m2).Sum() {
			t.Fatal("map digest depends on iteration order")
		}
	}
}

func TestDigestGoldenVector(t *testing.T) {
	t.Parallel()
	got := New("qinglong/test@v1").String("s", "hello").Int("i", -1).Bool("b", true).
		Strings("l", []string{"x", ""}).Map("m", map[string]string{"k": "v"}).Sum()
	const want = "sha256:e034dd7af9b422cc5b95ac5921b9a503551b9237adf5a9aa6755ec3f9882df69"
	if got != want {
		t.Fatalf("digest encoding drifted: got %s want %s", got, want)
	}
	if !Valid(got) {
		t.Fatalf("Valid(%s) = false", got)
	}
}

func TestValidRejectsMalformed(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "sha256:", "md5:00", "sha256:ZZ" + string(make([]byte, 62))} {
		if Valid(s) {
			t.Errorf("Valid(%q) = true", s)
		}
	}
}
