package apply

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// notifications reads
//
//	notifications:
//	  channels:
//	    NAME: {type: webhook, url: …, signingSecret: …}
//	  rules:
//	    - {on: failed, channel: NAME}
//	    - {on: skipped, reasons: [misfire], channel: NAME}
//	    - {consecutive_failures: 3, channel: NAME}
//
// and checks it whole; an empty mapping clears the project's settings.
func (p parser) notifications(n *yaml.Node) (notify.Spec, error) {
	var spec notify.Spec
	if n.Kind == yaml.MappingNode && len(n.Content) == 0 {
		return spec, nil
	}
	f, err := p.fields(n, "notifications", "channels", "rules")
	if err != nil {
		return spec, err
	}
	defined := map[string]bool{}
	if cn, ok := f["channels"]; ok {
		if cn.Kind != yaml.MappingNode {
			return spec, p.notMapping(cn, "notifications.channels", "notifications.channels must be a mapping of NAME: {type: …, url: …}")
		}
		if len(cn.Content)/2 > notify.MaxChannels {
			return spec, p.at(cn, invalid("notifications.channels: %d channels, the limit is %d", len(cn.Content)/2, notify.MaxChannels).
				Because(validate.RefusalTooMany, "field", "notifications.channels", "count", len(cn.Content)/2, "limit", notify.MaxChannels))
		}
		for i := 0; i+1 < len(cn.Content); i += 2 {
			c, err := p.channel(cn.Content[i].Value, cn.Content[i+1])
			if err != nil {
				return spec, err
			}
			if defined[c.Name] {
				return spec, p.at(cn.Content[i], invalid("notifications.channels: %q is given twice", c.Name).
					Because(validate.RefusalGivenTwice, "field", "notifications.channels", "value", c.Name))
			}
			defined[c.Name] = true
			spec.Channels = append(spec.Channels, c)
		}
	}
	rn, ok := f["rules"]
	if !ok {
		return spec, p.required(n, "notifications.rules", "notifications.rules: is required, e.g. rules: [{on: failed, channel: ops}]")
	}
	if rn.Kind != yaml.SequenceNode {
		return spec, p.notList(rn, "notifications.rules", "notifications.rules must be a list")
	}
	if len(rn.Content) > notify.MaxRules {
		return spec, p.at(rn, invalid("notifications.rules: %d rules, the limit is %d", len(rn.Content), notify.MaxRules).
			Because(validate.RefusalTooMany, "field", "notifications.rules", "count", len(rn.Content), "limit", notify.MaxRules))
	}
	for i, item := range rn.Content {
		r, err := p.rule(i, item)
		if err != nil {
			return spec, err
		}
		spec.Rules = append(spec.Rules, r)
		if err := (notify.Spec{Channels: spec.Channels, Rules: spec.Rules}).Validate(); err != nil {
			return spec, p.at(item, err)
		}
	}
	return spec, nil
}

func (p parser) channel(name string, n *yaml.Node) (notify.Channel, error) {
	what := "notifications.channels." + name
	f, err := p.fields(n, what, "type", "url", "urlSecret", "signingSecret", "tokenSecret", "chatId")
	if err != nil {
		return notify.Channel{}, err
	}
	c := notify.Channel{Name: name}
	t, ok := f["type"]
	if !ok {
		return c, p.required(n, what+".type", "%s.type: is required (webhook, telegram, dingtalk, wecom, feishu, bark, ntfy or slack)", what)
	}
	kind, err := p.str(t, what+".type")
	if err != nil {
		return c, err
	}
	c.Kind = notify.Kind(kind)
	for key, dst := range map[string]*string{"url": &c.URL, "urlSecret": &c.URLSecret, "signingSecret": &c.SigningSecret, "tokenSecret": &c.TokenSecret, "chatId": &c.ChatID} {
		if v, ok := f[key]; ok {
			if *dst, err = p.str(v, what+"."+key); err != nil {
				return c, err
			}
		}
	}
	if err := c.Validate(); err != nil {
		return c, p.at(n, err)
	}
	return c, nil
}

func (p parser) rule(i int, n *yaml.Node) (notify.Rule, error) {
	what := fmt.Sprintf("notifications.rules[%d]", i)
	f, err := p.fields(n, what, "on", "consecutive_failures", "reasons", "channel")
	if err != nil {
		return notify.Rule{}, err
	}
	var r notify.Rule
	on, hasOn := f["on"]
	cf, hasCF := f["consecutive_failures"]
	switch {
	case hasOn && hasCF:
		return r, p.at(n, invalid("%s: give on: EVENT or consecutive_failures: N, not both", what).Because(RefusalRuleEventAndStreak, "field", what))
	case hasOn:
		s, err := p.str(on, what+".on")
		if err != nil {
			return r, err
		}
		r.On = notify.Event(s)
		if r.On == notify.OnConsecutiveFailures {
			return r, p.at(on, invalid("%s.on: write consecutive_failures: N (the streak) instead of on: consecutive_failures", what).
				Because(RefusalRuleStreakAsEvent, "field", what+".on"))
		}
	case hasCF:
		if cf.Kind != yaml.ScalarNode || cf.Tag != "!!int" {
			return r, p.outOfRange(cf, what+".consecutive_failures", 1, notify.MaxConsecutive, "%s.consecutive_failures: must be a whole number from 1 to %d", what, notify.MaxConsecutive)
		}
		r.On = notify.OnConsecutiveFailures
		if r.Count, err = strconv.Atoi(cf.Value); err != nil || r.Count < 1 || r.Count > notify.MaxConsecutive {
			return r, p.outOfRange(cf, what+".consecutive_failures", 1, notify.MaxConsecutive, "%s.consecutive_failures: %s is outside 1 … %d", what, cf.Value, notify.MaxConsecutive)
		}
	default:
		return r, p.at(n, invalid("%s: needs on: EVENT (failed, timed_out, lost, skipped, recovered) or consecutive_failures: N", what).
			Because(RefusalRuleNoEvent, "field", what))
	}
	if v, ok := f["reasons"]; ok {
		if r.Reasons, err = p.stringList(v, what+".reasons"); err != nil {
			return r, err
		}
	}
	if v, ok := f["channel"]; ok {
		if r.Channel, err = p.str(v, what+".channel"); err != nil {
			return r, err
		}
	}
	return r, nil
}
