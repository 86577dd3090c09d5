package scheduler

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestConfigDefaultsMatchTheSpec(t *testing.T) {
	t.Parallel()
	got := Config{Owner: "r1"}.WithDefaults()
	want := Config{Owner: "r1", PageSize: 256, Lease: 30 * time.Second, Cadence: time.Second, StopTimeout: 10 * time.Second, Parallel: DefaultParallel, Grace: 30 * time.Second}
	if got != want {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
}

func TestConfigHasNoClockField(t *testing.T) {
	t.Parallel()
	ty := reflect.TypeOf(Config{})
	for i := 0; i < ty.NumField(); i++ {
		f := ty.Field(i)
		if f.Type.Kind() == reflect.Func || f.Type == reflect.TypeOf(time.Time{}) || strings.Contains(strings.ToLower(f.Name), "clock") || strings.Contains(strings.ToLower(f.Name), "now") {
			t.Errorf("Config.%s (%s) is a time source; decisions must use the claim's database time", f.Name, f.Type)
		}
	}
}

func TestValidateNamesTheFieldAndItsRange(t *testing.T) {
	t.Parallel()
	base := Config{Owner: "r1"}.WithDefaults()
	cases := []struct {
		name    string
		mutate  func(*Config)
		field   string
		allowed string
	}{
		{"owner empty", func(c *Config) { c.Owner = "" }, "Owner", "1–128 characters"},
		{"owner with space", func(c *Config) { c.Owner = "host 1" }, "Owner", "1–128 characters"},
		{"owner too long", func(c *Config) { c.Owner = strings.Repeat("a", 129) }, "Owner", "1–128 characters"},
		{"page size above hard cap", func(c *Config) { c.PageSize = 257 }, "PageSize", "1–256"},
		{"page size negative", func(c *Config) { c.PageSize = -1 }, "PageSize", "1–256"},
		{"lease too short", func(c *Config) { c.Lease = 999 * time.Millisecond }, "Lease", "1s–1m"},
		{"lease too long", func(c *Config) { c.Lease = 61 * time.Second }, "Lease", "1s–1m"},
		{"cadence too short", func(c *Config) { c.Cadence = 249 * time.Millisecond }, "Cadence", "250ms–1h"},
		{"cadence too long", func(c *Config) { c.Cadence = time.Hour + time.Second }, "Cadence", "250ms–1h"},
		{"stop timeout too short", func(c *Config) { c.StopTimeout = 99 * time.Millisecond }, "StopTimeout", "100ms–30s"},
		{"stop timeout too long", func(c *Config) { c.StopTimeout = 31 * time.Second }, "StopTimeout", "100ms–30s"},
		{"parallel too high", func(c *Config) { c.Parallel = 17 }, "Parallel", "1–16"},
		{"grace negative", func(c *Config) { c.Grace = -time.Second }, "Grace", "0s–24h"},
		{"grace too long", func(c *Config) { c.Grace = 25 * time.Hour }, "Grace", "0s–24h"},
		{"claim ahead negative", func(c *Config) { c.ClaimAhead = -time.Millisecond }, "ClaimAhead", "0s–2s"},
		{"claim ahead too long", func(c *Config) { c.ClaimAhead = 2*time.Second + time.Millisecond }, "ClaimAhead", "0s–2s"},
		{"claim ahead over a quarter of the lease", func(c *Config) { c.Lease, c.ClaimAhead = 4*time.Second, 1001*time.Millisecond }, "ClaimAhead", "0s–1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := base
			tc.mutate(&c)
			err := c.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FieldError", err)
			}
			if fe.Field != tc.field || !strings.Contains(fe.Allowed, tc.allowed) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("error %q (field %s, allowed %s), want field %s with range %s", err, fe.Field, fe.Allowed, tc.field, tc.allowed)
			}
		})
	}
}

func TestBoundaryValuesAreAccepted(t *testing.T) {
	t.Parallel()
	for _, c := range []Config{
		{Owner: "a", PageSize: 1, Lease: time.Second, Cadence: 250 * time.Millisecond, StopTimeout: 100 * time.Millisecond, Parallel: 1, Grace: time.Millisecond},
		{Owner: strings.Repeat("b", 128), PageSize: 256, Lease: time.Minute, Cadence: time.Hour, StopTimeout: 30 * time.Second, Parallel: 16, Grace: 24 * time.Hour},
		{Owner: "host-1.example:4242_x"},
	} {
		if err := c.WithDefaults().Validate(); err != nil {
			t.Errorf("%+v rejected: %v", c, err)
		}
	}
}

// A misfire grace given as 0 is a grace of none; left out, it is the
// default.
func TestAGivenZeroGraceIsNoGraceNotTheDefault(t *testing.T) {
	if g := (Config{Owner: "r1", GraceSet: true}).WithDefaults().Grace; g != 0 {
		t.Errorf("grace given as 0 became %s", g)
	}
	if g := (Config{Owner: "r1"}).WithDefaults().Grace; g != DefaultGrace {
		t.Errorf("grace left out is %s, want %s", g, DefaultGrace)
	}
}
