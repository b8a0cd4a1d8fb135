package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Params are a workload's own values as its result's config holds them
// (bcrypt's cost, memtouch's buffer_bytes, memory and touch), in the order
// the workload declares them. They are written inline in the config, after
// "workload", so each workload adds its keys without a field here; the
// workload's Spec (internal/bench/workload/decl) says what they are.
type Params []Param

// Param is one value under its JSON key.
type Param struct {
	Key   string
	Value json.RawMessage
}

// With returns ps with key set to v (replaced in place, or appended).
func (ps Params) With(key string, v any) Params {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("param %s: %v", key, err)) // our own values: ints, strings, lists
	}
	out := slices.Clone(ps)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = raw
			return out
		}
	}
	return append(out, Param{Key: key, Value: raw})
}

// Raw is key's value as written, and whether it is there.
func (ps Params) Raw(key string) (json.RawMessage, bool) {
	for _, p := range ps {
		if p.Key == key {
			return p.Value, true
		}
	}
	return nil, false
}

// Int is key's value as a whole number; 0 when it is absent or not one.
func (ps Params) Int(key string) int {
	var n int
	if raw, ok := ps.Raw(key); ok {
		_ = json.Unmarshal(raw, &n)
	}
	return n
}

// String is key's value as text; "" when it is absent or not text.
func (ps Params) String(key string) string {
	var s string
	if raw, ok := ps.Raw(key); ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// MarshalJSON writes ps as one object, in order.
func (ps Params) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if err := ps.writeMembers(&b); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (ps Params) writeMembers(b *bytes.Buffer) error {
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.Key)
		if err != nil {
			return err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(p.Value)
	}
	return nil
}

// UnmarshalJSON reads an object, keeping its keys' order.
func (ps *Params) UnmarshalJSON(data []byte) error {
	out := Params{}
	err := members(data, func(key string, v json.RawMessage) { out = append(out, Param{key, v}) })
	*ps = out
	return err
}

// members calls f with each member of the object in data, in order, its
// value compacted.
func members(data []byte, f func(key string, v json.RawMessage)) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("want an object: %.40q", data)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return err
		}
		f(t.(string), c.Bytes())
	}
	_, err := dec.Token()
	return err
}

// configFields is Config without the workload's own values: the keys
// whose place and meaning are fixed.
type configFields Config

// MarshalJSON writes "workload", then the workload's own values, then the
// rest, as the config has always read.
func (c Config) MarshalJSON() ([]byte, error) {
	w, err := json.Marshal(c.Workload)
	if err != nil {
		return nil, err
	}
	rest := configFields(c)
	rest.Workload, rest.Params = "", nil
	tail, err := json.Marshal(rest) // {"sleep_ms":…}: Workload is "-" there
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"workload":`)
	b.Write(w)
	if len(c.Params) > 0 {
		b.WriteByte(',')
		if err := c.Params.writeMembers(&b); err != nil {
			return nil, err
		}
	}
	if len(tail) > 2 {
		b.WriteByte(',')
	}
	b.Write(tail[1:])
	return b.Bytes(), nil
}

// UnmarshalJSON reads the fixed keys into their fields and every other key
// into Params, in the order written.
func (c *Config) UnmarshalJSON(data []byte) error {
	fixed := fixedKeys()
	var rest bytes.Buffer
	rest.WriteByte('{')
	var ps Params
	var workload json.RawMessage
	err := members(data, func(key string, v json.RawMessage) {
		switch {
		case key == "workload":
			workload = v
		case fixed[key]:
			if rest.Len() > 1 {
				rest.WriteByte(',')
			}
			k, _ := json.Marshal(key)
			rest.Write(k)
			rest.WriteByte(':')
			rest.Write(v)
		default:
			ps = append(ps, Param{key, v})
		}
	})
	if err != nil {
		return err
	}
	rest.WriteByte('}')
	var f configFields
	if err := json.Unmarshal(rest.Bytes(), &f); err != nil {
		return err
	}
	if workload != nil {
		if err := json.Unmarshal(workload, &f.Workload); err != nil {
			return err
		}
	}
	f.Params = ps
	*c = Config(f)
	return nil
}

// fixedKeys are the JSON keys of Config's own fields.
var fixedKeys = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[configFields]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
})
