package notify

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The quoted output is what a terminal showed at the end of the log:
// colours and other escape sequences dropped, a progress bar's last state,
// control characters and invalid bytes visible as U+FFFD, no trailing
// blank lines, the first (cut) line of a partial read left out.
func TestQuotedOutputIsTheEndOfTheLogAsATerminalShowedIt(t *testing.T) {
	cases := []struct {
		name  string
		tail  string
		whole bool
		lines int
		want  string
	}{
		{"last lines only", "a\nb\nc\nd\n", true, 2, "c\nd"},
		{"colours and a title sequence dropped", "\x1b[1;31mERROR\x1b[0m disk full\n\x1b]0;title\x07done\n", true, 5, "ERROR disk full\ndone"},
		{"a progress bar's last state", "copy 10%\rcopy 55%\rcopy 100%\r\nok\n", true, 5, "copy 100%\nok"},
		{"CR LF line ends", "one\r\ntwo\r\n", true, 5, "one\ntwo"},
		{"control characters and invalid bytes shown", "bell\x07 nul\x00 bad\xff\n", true, 5, "bell\uFFFD nul\uFFFD bad\uFFFD"},
		{"tabs kept, trailing blanks and blank lines dropped", "k\tv   \n\n  \n", true, 5, "k\tv"},
		{"a partial read's first line left out", "ut line\nfull line\n", false, 5, "full line"},
		{"a partial read of one line quotes nothing", "no newline at all", false, 5, ""},
		{"no lines asked", "a\n", true, 0, ""},
		{"an empty log", "", true, 5, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := OutputTail([]byte(c.tail), c.whole, c.lines); got != c.want {
				t.Fatalf("OutputTail(%q, %v, %d) = %q, want %q", c.tail, c.whole, c.lines, got, c.want)
			}
		})
	}
}

// However many lines a channel asks for, the quote stays within
// MaxOutputBytes, cut at a line start; a single longer line keeps its end
// from a character boundary.
func TestQuotedOutputStaysWithinItsByteCap(t *testing.T) {
	line := strings.Repeat("x", 99)
	many := strings.Repeat(line+"\n", 40)
	got := OutputTail([]byte(many), true, MaxOutputLines)
	if len(got) > MaxOutputBytes || strings.Count(got, "\n") != MaxOutputBytes/100-1 || !strings.HasPrefix(got, line) {
		t.Fatalf("40 lines of 100 bytes quote %d bytes in %d lines, want whole lines within %d", len(got), strings.Count(got, "\n")+1, MaxOutputBytes)
	}
	long := strings.Repeat("青", 2*MaxOutputBytes/3) + "end\n"
	got = OutputTail([]byte(long), true, 3)
	if len(got) > MaxOutputBytes || !utf8.ValidString(got) || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "青end") {
		t.Fatalf("one long line quotes %d bytes %q…, want its end after …, valid UTF-8, within %d", len(got), got[:min(len(got), 12)], MaxOutputBytes)
	}
}

// A Markdown service gets the output fenced by more backticks than it
// holds, so nothing in it is rendered or closes the fence early.
func TestMarkdownOutputIsFencedBeyondItsOwnBackticks(t *testing.T) {
	p := Payload{RunID: "r", Output: "see ```code``` here"}
	got := english.markdownText(p)
	if !strings.Contains(got, "\n````\nsee ```code``` here\n````") {
		t.Fatalf("MarkdownText = %q, want the output inside a fence of four backticks", got)
	}
	if Details(p) != english.markdownText(Payload{RunID: "r"}) {
		t.Fatal("a payload without output renders differently from its details")
	}
}

// A console address is taken only when a link can be made of it (a port
// outside 1–65535 is none), and a refusal of one with a user never repeats
// its password; a link is the address, without a trailing slash, and the
// Run's page.
func TestAConsoleAddressIsCheckedAndLinksToTheRunsPage(t *testing.T) {
	for _, ok := range []string{"", "https://ql.example.com", "http://10.0.0.5:8080/", "https://example.com/qinglong/"} {
		if err := CheckConsoleURL(ok); err != nil {
			t.Errorf("CheckConsoleURL(%q) = %v, want it taken", ok, err)
		}
	}
	for _, bad := range []string{"ql.example.com", "ftp://ql.example.com", "https://", "https://u:p@ql.example.com", "https://ql.example.com/?x=1", "https://ql.example.com/#runs", "https://ql.example.com:99999"} {
		if err := CheckConsoleURL(bad); err == nil || !strings.Contains(err.Error(), "--console-url") || !strings.Contains(err.Error(), "https://ql.example.com") {
			t.Errorf("CheckConsoleURL(%q) = %v, want a refusal naming the flag and an example", bad, err)
		}
	}
	// A user's password is never repeated in the refusal.
	if err := CheckConsoleURL("https://ops:hunter2@ql.example.com"); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("CheckConsoleURL with a password = %v, want a refusal that does not repeat it", err)
	}
	if got := RunLink("https://example.com/qinglong/", "0193-ab"); got != "https://example.com/qinglong/runs/0193-ab" {
		t.Fatalf("RunLink = %q", got)
	}
}
