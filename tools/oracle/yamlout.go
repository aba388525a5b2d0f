package main

// Block-style YAML from JSON, keeping the key order of the JSON (which for
// API objects is the order of the Go struct fields, as dractl prints them).

import (
	"bytes"
	"encoding/json"
	"fmt"

	yamlv3 "go.yaml.in/yaml/v3"
)

func jsonToBlockYAML(doc []byte) ([]byte, error) {
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(doc, &root); err != nil {
		return nil, err
	}
	var reset func(n *yamlv3.Node)
	reset = func(n *yamlv3.Node) {
		n.Style = 0
		for _, c := range n.Content {
			reset(c)
		}
	}
	reset(&root)
	var buf bytes.Buffer
	enc := yamlv3.NewEncoder(&buf)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(&root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// yamlToJSON converts YAML to JSON with YAML 1.2 scalars (`y`, `n`, `on`,
// `off` stay strings), as dractl's own reader treats them. sigs.k8s.io/yaml
// would read them as YAML 1.1 booleans.
func yamlToJSON(text []byte) ([]byte, error) {
	var v any
	if err := yamlv3.Unmarshal(text, &v); err != nil {
		return nil, err
	}
	v, err := jsonCompatible(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func jsonCompatible(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			c, err := jsonCompatible(e)
			if err != nil {
				return nil, err
			}
			x[k] = c
		}
		return x, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := jsonCompatible(e)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = c
		}
		return out, nil
	case []any:
		for i, e := range x {
			c, err := jsonCompatible(e)
			if err != nil {
				return nil, err
			}
			x[i] = c
		}
		return x, nil
	default:
		return v, nil
	}
}
