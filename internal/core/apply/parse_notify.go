package apply

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// notifications reads
//
//	notifications:
//	  channels:
//	    NAME: {type: webhook, url: …, signingSecret: …}
//	    NAME: {type: email, host: …, from: …, to: [a@b, …], username: …, passwordSecret: …}
//	  rules:
//	    - {on: failed, channel: NAME}
//	    - {on: skipped, reasons: [misfire], channel: NAME}
//	    - {consecutive_failures: 3, channel: NAME}
//	    - {on: succeeded, tasks: [checkin], triggers: [nightly], channel: NAME}
//
// and checks it whole; an empty mapping clears the project's settings.
// Each channel and each rule is read and checked on its own, a rule's
// channel against the names given under channels; what a rule says of the
// channels' settings and of the rules before it is checked only while
// they were all read whole, as the check names a rule by its place among
// those.
func (p parser) notifications(n *yaml.Node) notify.Spec {
	var spec notify.Spec
	if n.Kind == yaml.MappingNode && len(n.Content) == 0 {
		return spec
	}
	f, complete := p.fields(n, "notifications", "channels", "rules")
	if f == nil {
		return spec
	}
	before := p.found.count()
	// defined is every channel name given, whether or not its settings
	// read; no channels key names none. It stays nil, unknown, when a
	// key of notifications is not known (most likely channels misspelt)
	// or channels is not a mapping of them.
	var defined map[string]bool
	if complete {
		defined = map[string]bool{}
	}
	if cn, ok := f["channels"]; ok {
		spec.Channels, defined = p.channels(cn)
		if !complete {
			defined = nil
		}
	}
	rn, ok := f["rules"]
	switch {
	case !ok:
		p.required(n, complete, "notifications.rules", "notifications.rules: is required, e.g. rules: [{on: failed, channel: ops}]")
		return spec
	case rn.Kind != yaml.SequenceNode:
		p.notList(rn, "notifications.rules", "notifications.rules must be a list")
		return spec
	case len(rn.Content) > notify.MaxRules:
		p.fail(rn, invalid("notifications.rules: %d rules, the limit is %d", len(rn.Content), notify.MaxRules).
			Because(validate.RefusalTooMany, "field", "notifications.rules", "count", len(rn.Content), "limit", notify.MaxRules))
		return spec
	}
	// A misspelt channels key leaves every channel a rule names undefined.
	whole := complete && p.found.count() == before
	for i, item := range rn.Content {
		r, ok := p.rule(i, item)
		if !ok {
			whole = false
			continue
		}
		if !whole {
			// Still checked for what it says of itself, at its place in
			// the file, so one try shows every mistake of the rules.
			if err := r.ValidateOwn(fmt.Sprintf("notifications.rules[%d]", i), defined); err != nil {
				p.fail(item, err)
			}
			continue
		}
		spec.Rules = append(spec.Rules, r)
		if err := (notify.Spec{Channels: spec.Channels, Rules: spec.Rules}).Validate(); err != nil {
			whole = p.fail(item, err)
		}
	}
	return spec
}

// channels reads notifications.channels, each channel on its own, and
// the name of every channel given, read whole or not (nil when channels is
// not a mapping of them).
func (p parser) channels(cn *yaml.Node) ([]notify.Channel, map[string]bool) {
	if cn.Kind != yaml.MappingNode {
		p.notMapping(cn, "notifications.channels", "notifications.channels must be a mapping of NAME: {type: …, url: …}")
		return nil, nil
	}
	defined := map[string]bool{}
	for i := 0; i < len(cn.Content); i += 2 {
		defined[cn.Content[i].Value] = true
	}
	if len(cn.Content)/2 > notify.MaxChannels {
		p.fail(cn, invalid("notifications.channels: %d channels, the limit is %d", len(cn.Content)/2, notify.MaxChannels).
			Because(validate.RefusalTooMany, "field", "notifications.channels", "count", len(cn.Content)/2, "limit", notify.MaxChannels))
		return nil, defined
	}
	var out []notify.Channel
	seen := map[string]bool{}
	for i := 0; i+1 < len(cn.Content); i += 2 {
		c, ok := p.channel(cn.Content[i].Value, cn.Content[i+1])
		switch {
		case seen[c.Name]:
			p.fail(cn.Content[i], invalid("notifications.channels: %q is given twice", c.Name).
				Because(validate.RefusalGivenTwice, "field", "notifications.channels", "value", c.Name))
		case ok:
			out = append(out, c)
		}
		seen[c.Name] = true
	}
	return out, defined
}

func (p parser) channel(name string, n *yaml.Node) (notify.Channel, bool) {
	what := "notifications.channels." + name
	c := notify.Channel{Name: name}
	f, complete := p.fields(n, what, "type", "url", "urlSecret", "signingSecret", "tokenSecret", "chatId",
		"host", "port", "tls", "from", "to", "username", "passwordSecret", "output", "language", "timeZone")
	if f == nil {
		return c, false
	}
	before := p.found.count()
	if t, ok := f["type"]; !ok {
		p.required(n, complete, what+".type", "%s.type: is required (%s)", what, kindList())
	} else {
		kind, _ := p.str(t, what+".type")
		c.Kind = notify.Kind(kind)
	}
	for _, k := range []struct {
		key string
		dst *string
	}{{"url", &c.URL}, {"urlSecret", &c.URLSecret}, {"signingSecret", &c.SigningSecret}, {"tokenSecret", &c.TokenSecret}, {"chatId", &c.ChatID},
		{"host", &c.Host}, {"tls", &c.TLS}, {"from", &c.From}, {"username", &c.Username}, {"passwordSecret", &c.PasswordSecret},
		{"language", &c.Language}, {"timeZone", &c.TimeZone}} {
		if v, ok := f[k.key]; ok {
			*k.dst, _ = p.str(v, what+"."+k.key)
		}
	}
	if v, ok := f["port"]; ok {
		port, err := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || port < 1 || port > 65535 {
			p.outOfRange(v, what+".port", 1, 65535, "%s.port: must be a whole number from 1 to 65535, like 587 (STARTTLS) or 465 (TLS from the start)", what)
		}
		c.Port = port
	}
	if v, ok := f["output"]; ok {
		lines, err := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || lines < 0 || lines > notify.MaxOutputLines {
			p.outOfRange(v, what+".output", 0, notify.MaxOutputLines,
				"%s.output: must be a whole number from 0 to %d, the last lines of a finished Run's output its notifications quote (0: none)", what, notify.MaxOutputLines)
		}
		c.Output = lines
	}
	if v, ok := f["to"]; ok {
		// One address, or a list of them.
		if v.Kind == yaml.ScalarNode {
			if s, ok := p.str(v, what+".to"); ok {
				c.To = []string{s}
			}
		} else {
			c.To, _ = p.stringList(v, what+".to")
		}
	}
	if !complete || p.found.count() != before {
		return c, false
	}
	// The name and the settings are checked apart, so one try says a
	// mistake of each.
	named := true
	if err := validate.Name("notifications.channels name", c.Name); err != nil {
		named = p.fail(n, err)
	}
	if err := c.ValidateSettings(); err != nil {
		return c, p.fail(n, err)
	}
	return c, named
}

// kindList is the channel kinds, as a sentence lists them.
func kindList() string {
	s := make([]string, len(notify.Kinds))
	for i, k := range notify.Kinds {
		s[i] = string(k)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func (p parser) rule(i int, n *yaml.Node) (notify.Rule, bool) {
	what := fmt.Sprintf("notifications.rules[%d]", i)
	var r notify.Rule
	f, complete := p.fields(n, what, "on", "consecutive_failures", "reasons", "channel", "tasks", "triggers")
	if f == nil {
		return r, false
	}
	before := p.found.count()
	on, hasOn := f["on"]
	cf, hasCF := f["consecutive_failures"]
	switch {
	case hasOn && hasCF:
		p.fail(n, invalid("%s: give on: EVENT or consecutive_failures: N, not both", what).Because(RefusalRuleEventAndStreak, "field", what))
	case hasOn:
		s, ok := p.str(on, what+".on")
		r.On = notify.Event(s)
		if ok && r.On == notify.OnConsecutiveFailures {
			p.fail(on, invalid("%s.on: write consecutive_failures: N (the streak) instead of on: consecutive_failures", what).
				Because(RefusalRuleStreakAsEvent, "field", what+".on"))
		}
	case hasCF:
		if cf.Kind != yaml.ScalarNode || cf.Tag != "!!int" {
			p.outOfRange(cf, what+".consecutive_failures", 1, notify.MaxConsecutive, "%s.consecutive_failures: must be a whole number from 1 to %d", what, notify.MaxConsecutive)
			break
		}
		r.On = notify.OnConsecutiveFailures
		var err error
		if r.Count, err = strconv.Atoi(cf.Value); err != nil || r.Count < 1 || r.Count > notify.MaxConsecutive {
			p.outOfRange(cf, what+".consecutive_failures", 1, notify.MaxConsecutive, "%s.consecutive_failures: %s is outside 1 … %d", what, cf.Value, notify.MaxConsecutive)
		}
	case complete:
		p.fail(n, invalid("%s: needs on: EVENT (%s) or consecutive_failures: N", what, eventList()).
			Because(RefusalRuleNoEvent, "field", what))
	}
	if v, ok := f["reasons"]; ok {
		r.Reasons, _ = p.stringList(v, what+".reasons")
	}
	if v, ok := f["channel"]; ok {
		r.Channel, _ = p.str(v, what+".channel")
	}
	r.Tasks = p.scope(f, what, "tasks", "task", "checkin")
	r.Triggers = p.scope(f, what, "triggers", "trigger", "nightly")
	return r, complete && p.found.count() == before
}

// scope reads a rule's tasks or triggers: a list of names, even of one.
func (p parser) scope(f map[string]*yaml.Node, what, key, kind, example string) []string {
	v, ok := f[key]
	if !ok {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		p.notList(v, what+"."+key, "%s.%s must be a list of %s names, like %s: [%s]", what, key, kind, key, example)
		return nil
	}
	names, _ := p.stringList(v, what+"."+key)
	return names
}

// eventList is the events a rule's on: takes, as a sentence lists them.
func eventList() string {
	var s []string
	for _, e := range notify.Events {
		if e != notify.OnConsecutiveFailures {
			s = append(s, string(e))
		}
	}
	return strings.Join(s, ", ")
}
