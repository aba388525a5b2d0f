package main

// `oracle cel run FILE.jsonl`: evaluates CEL vectors (FORMAT.md §2) of the
// Kubernetes profile (dra-*, k8s-*) with upstream's DRA CEL package and prints
// one JSON object a line, as `dractl cel run FILE.jsonl --profile kubernetes`:
//
//	{"name": "...", "value": <typed value>}   or   {"name": "...", "error": "..."}
//
// Every vector is compiled in the DRA selector environment of
// k8s.io/dynamic-resource-allocation/cel (the Kubernetes base environment of
// k8s.io/apiserver at its default compatibility version, plus the `device`
// variable): StoredExpressions, or NewExpressions when `env` says so, with
// the DRA feature gates of `features`.
//
//   - With `device`: compiled as kube-scheduler compiles a selector (bool
//     output required, no cost estimation) and run with DeviceMatches on that
//     device, built from `raw_attributes`/`raw_capacity` when present (names
//     as a ResourceSlice lists them), else from `device`.
//   - Without `device`: compiled in the same environment without the bool
//     check and evaluated with no variables; the value is printed as is.
//
// The runtime cost limit is the DRA selector limit (1,000,000).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// celVector is one line of a CEL vector file (the fields the Kubernetes
// profile uses).
type celVector struct {
	Name          string                     `json:"name"`
	Expr          string                     `json:"expr"`
	Device        *celDevice                 `json:"device"`
	RawAttributes map[string]json.RawMessage `json:"raw_attributes"`
	RawCapacity   map[string]string          `json:"raw_capacity"`
	Env           string                     `json:"env"`
	Features      []string                   `json:"features"`
	Expect        map[string]json.RawMessage `json:"expect"`
	Bindings      map[string]json.RawMessage `json:"bindings"`
}

type celDevice struct {
	Driver                   string                                `json:"driver"`
	AllowMultipleAllocations *bool                                 `json:"allowMultipleAllocations"`
	Attributes               map[string]map[string]json.RawMessage `json:"attributes"`
	Capacity                 map[string]map[string]string          `json:"capacity"`
}

// celResult is one output line. Exactly one of Value and Error is set.
type celResult struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value,omitempty"`
	Error *string         `json:"error,omitempty"`
}

func cmdCelRun(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: oracle cel run FILE.jsonl")
		return 2
	}
	results, err := runCelFile(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle cel run: %v\n", err)
		return 1
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, r := range results {
		line, err := resultLine(r)
		if err != nil {
			fmt.Fprintf(os.Stderr, "oracle cel run: %s: %v\n", r.Name, err)
			return 1
		}
		w.WriteString(line)
		w.WriteByte('\n')
	}
	return 0
}

// resultLine prints a result as dractl does: `{"name": ..., "value": ...}`
// with a space after every colon and comma, no HTML escaping, and doubles
// always with a fraction or exponent.
func resultLine(r celResult) (string, error) {
	var b strings.Builder
	b.WriteString(`{"name": `)
	writeJSONString(&b, r.Name)
	if r.Error != nil {
		b.WriteString(`, "error": `)
		writeJSONString(&b, *r.Error)
	} else {
		var v any
		dec := json.NewDecoder(bytes.NewReader(r.Value))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return "", err
		}
		b.WriteString(`, "value": `)
		writeSpaced(&b, v, "")
	}
	b.WriteString("}")
	return b.String(), nil
}

func writeJSONString(b *strings.Builder, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
}

func writeSpaced(b *strings.Builder, v any, key string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(": ")
			writeSpaced(b, x[k], k)
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeSpaced(b, e, "")
		}
		b.WriteString("]")
	case string:
		writeJSONString(b, x)
	case json.Number:
		s := x.String()
		if key == "double" && !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		b.WriteString(s)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		j, _ := json.Marshal(x)
		b.Write(j)
	}
}

func readCelVectors(path string) ([]celVector, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []celVector
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var v celVector
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func runCelFile(path string) ([]celResult, error) {
	vectors, err := readCelVectors(path)
	if err != nil {
		return nil, err
	}
	var out []celResult
	for _, v := range vectors {
		out = append(out, runCelVector(v))
	}
	return out, nil
}

func errorResult(name, msg string) celResult { return celResult{Name: name, Error: &msg} }

func runCelVector(v celVector) (result celResult) {
	defer func() {
		if r := recover(); r != nil {
			result = errorResult(v.Name, fmt.Sprintf("oracle: panic: %v", r))
		}
	}()
	features := dracel.Features{}
	for _, f := range v.Features {
		switch f {
		case "DRAConsumableCapacity":
			features.EnableConsumableCapacity = true
		case "DRAListTypeAttributes":
			features.EnableListTypeAttributes = true
		default:
			return errorResult(v.Name, "oracle: unknown feature "+f)
		}
	}
	envType := environment.StoredExpressions
	switch v.Env {
	case "", "StoredExpressions":
	case "NewExpressions":
		envType = environment.NewExpressions
	default:
		return errorResult(v.Name, "oracle: unknown env "+v.Env)
	}
	if len(v.Bindings) > 0 {
		return errorResult(v.Name, "oracle: bindings are not supported in the Kubernetes profile")
	}
	compiler := dracel.GetCompiler(features)
	opts := dracel.Options{EnvType: &envType, DisableCostEstimation: true}
	ctx := context.Background()

	if v.Device != nil {
		compiled := compiler.CompileCELExpression(v.Expr, opts)
		if compiled.Error != nil {
			return errorResult(v.Name, compiled.Error.Error())
		}
		device, err := buildDevice(v)
		if err != nil {
			return errorResult(v.Name, "oracle: bad device: "+err.Error())
		}
		matches, _, err := compiled.DeviceMatches(ctx, device)
		if err != nil {
			return errorResult(v.Name, err.Error())
		}
		return celResult{Name: v.Name, Value: json.RawMessage(fmt.Sprintf(`{"bool":%t}`, matches))}
	}

	// No device: the same environment, any output type.
	base := compiler.CompileCELExpression("true", opts)
	if base.Error != nil {
		return errorResult(v.Name, "oracle: environment: "+base.Error.Error())
	}
	env := base.Environment
	ast, issues := env.Compile(v.Expr)
	if issues != nil && issues.Err() != nil {
		return errorResult(v.Name, "compilation failed: "+issues.String())
	}
	prog, err := env.Program(ast, celgo.CostLimit(resourceapi.CELSelectorExpressionMaxCost))
	if err != nil {
		return errorResult(v.Name, "program instantiation failed: "+err.Error())
	}
	val, _, err := prog.ContextEval(ctx, map[string]any{})
	if err != nil {
		return errorResult(v.Name, err.Error())
	}
	typed, err := typedJSON(val)
	if err != nil {
		return errorResult(v.Name, "oracle: "+err.Error())
	}
	data, err := json.Marshal(typed)
	if err != nil {
		return errorResult(v.Name, "oracle: "+err.Error())
	}
	return celResult{Name: v.Name, Value: data}
}

// buildDevice builds the device a selector sees, with attribute and capacity
// names as a ResourceSlice lists them.
func buildDevice(v celVector) (dracel.Device, error) {
	d := dracel.Device{
		Driver:                   v.Device.Driver,
		AllowMultipleAllocations: v.Device.AllowMultipleAllocations,
		Attributes:               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{},
		Capacity:                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{},
	}
	if v.RawAttributes != nil {
		for name, raw := range v.RawAttributes {
			a, err := attributeFromTyped(raw)
			if err != nil {
				return d, fmt.Errorf("attribute %s: %w", name, err)
			}
			d.Attributes[resourceapi.QualifiedName(name)] = a
		}
	} else {
		for domain, attrs := range v.Device.Attributes {
			for name, raw := range attrs {
				a, err := attributeFromTyped(raw)
				if err != nil {
					return d, fmt.Errorf("attribute %s/%s: %w", domain, name, err)
				}
				d.Attributes[resourceapi.QualifiedName(domain+"/"+name)] = a
			}
		}
	}
	addCapacity := func(name, text string) error {
		q, err := resource.ParseQuantity(text)
		if err != nil {
			return fmt.Errorf("capacity %s: %w", name, err)
		}
		d.Capacity[resourceapi.QualifiedName(name)] = resourceapi.DeviceCapacity{Value: q}
		return nil
	}
	if v.RawCapacity != nil {
		for name, text := range v.RawCapacity {
			if err := addCapacity(name, text); err != nil {
				return d, err
			}
		}
	} else {
		for domain, caps := range v.Device.Capacity {
			for name, text := range caps {
				if err := addCapacity(domain+"/"+name, text); err != nil {
					return d, err
				}
			}
		}
	}
	return d, nil
}

// attributeFromTyped converts {"int": "5"}, {"bool": true}, {"string": "x"},
// {"semver": "1.2.3"} or {"list": [...]} of one of those.
func attributeFromTyped(raw json.RawMessage) (resourceapi.DeviceAttribute, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 {
		return resourceapi.DeviceAttribute{}, fmt.Errorf("not a typed value: %s", raw)
	}
	var a resourceapi.DeviceAttribute
	for kind, value := range m {
		switch kind {
		case "int":
			var s string
			if err := json.Unmarshal(value, &s); err != nil {
				return a, err
			}
			i, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return a, err
			}
			a.IntValue = &i
		case "bool":
			var b bool
			if err := json.Unmarshal(value, &b); err != nil {
				return a, err
			}
			a.BoolValue = &b
		case "string", "semver":
			var s string
			if err := json.Unmarshal(value, &s); err != nil {
				return a, err
			}
			if kind == "string" {
				a.StringValue = &s
			} else {
				a.VersionValue = &s
			}
		case "list":
			var items []json.RawMessage
			if err := json.Unmarshal(value, &items); err != nil {
				return a, err
			}
			// An empty list has no element type; dractl makes it an int list.
			a.IntValues = []int64{}
			for i, item := range items {
				e, err := attributeFromTyped(item)
				if err != nil {
					return a, err
				}
				switch {
				case e.IntValue != nil:
					a.IntValues = append(a.IntValues, *e.IntValue)
				case e.BoolValue != nil:
					a.BoolValues = append(a.BoolValues, *e.BoolValue)
				case e.StringValue != nil:
					a.StringValues = append(a.StringValues, *e.StringValue)
				case e.VersionValue != nil:
					a.VersionValues = append(a.VersionValues, *e.VersionValue)
				default:
					return a, fmt.Errorf("list element %d: unsupported", i)
				}
			}
			if len(a.BoolValues)+len(a.StringValues)+len(a.VersionValues) > 0 {
				if len(a.IntValues) > 0 {
					return a, fmt.Errorf("list mixes element types")
				}
				a.IntValues = nil
			}
		default:
			return a, fmt.Errorf("unsupported attribute value type %q", kind)
		}
	}
	return a, nil
}

// typedJSON converts a CEL value into the typed JSON of FORMAT.md §2.
func typedJSON(val ref.Val) (any, error) {
	switch x := val.(type) {
	case *types.Err:
		return nil, x
	case types.Bool:
		return map[string]any{"bool": bool(x)}, nil
	case types.Int:
		return map[string]any{"int": strconv.FormatInt(int64(x), 10)}, nil
	case types.Uint:
		return map[string]any{"uint": strconv.FormatUint(uint64(x), 10)}, nil
	case types.Double:
		f := float64(x)
		switch {
		case math.IsNaN(f):
			return map[string]any{"double": "NaN"}, nil
		case math.IsInf(f, 1):
			return map[string]any{"double": "Infinity"}, nil
		case math.IsInf(f, -1):
			return map[string]any{"double": "-Infinity"}, nil
		}
		return map[string]any{"double": f}, nil
	case types.String:
		return map[string]any{"string": string(x)}, nil
	case types.Bytes:
		return map[string]any{"bytes": base64.StdEncoding.EncodeToString([]byte(x))}, nil
	case types.Null:
		return map[string]any{"null": nil}, nil
	case *types.Type:
		return map[string]any{"type": x.TypeName()}, nil
	case *types.Optional:
		if !x.HasValue() {
			return map[string]any{"optional": nil}, nil
		}
		inner, err := typedJSON(x.GetValue())
		if err != nil {
			return nil, err
		}
		return map[string]any{"optional": inner}, nil
	case apiservercel.Quantity:
		return map[string]any{"quantity": x.Quantity.String()}, nil
	case apiservercel.Semver:
		return map[string]any{"semver": x.Version.String()}, nil
	}
	if lister, ok := val.(traits.Lister); ok {
		items := []any{}
		it := lister.Iterator()
		for it.HasNext() == types.True {
			e, err := typedJSON(it.Next())
			if err != nil {
				return nil, err
			}
			items = append(items, e)
		}
		return map[string]any{"list": items}, nil
	}
	if mapper, ok := val.(traits.Mapper); ok {
		pairs := []any{}
		it := mapper.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			kj, err := typedJSON(k)
			if err != nil {
				return nil, err
			}
			vj, err := typedJSON(mapper.Get(k))
			if err != nil {
				return nil, err
			}
			pairs = append(pairs, []any{kj, vj})
		}
		return map[string]any{"map": pairs}, nil
	}
	return map[string]any{val.Type().TypeName(): fmt.Sprint(val.Value())}, nil
}

// --- Comparison ------------------------------------------------------------------------

// compareCelFile compares, per vector, the oracle with dractl (or with the
// vector's expect): errors against errors whatever the message, values by
// typed equality.
func compareCelFile(path string, o compareOptions) (int, []string) {
	file := filepath.Base(path)
	vectors, err := readCelVectors(path)
	if err != nil {
		return 1, []string{fmt.Sprintf("%s: %v", file, err)}
	}
	oracle := map[string]celResult{}
	for _, v := range vectors {
		oracle[v.Name] = runCelVector(v)
	}
	other := map[string]celResult{}
	otherName := "dractl"
	if o.against == "expect" {
		otherName = "expect"
		for _, v := range vectors {
			r := celResult{Name: v.Name, Value: v.Expect["value"]}
			if e, ok := v.Expect["error"]; ok {
				var s string
				json.Unmarshal(e, &s)
				r.Error = &s
			}
			other[v.Name] = r
		}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, o.dractl, "cel", "run", path, "--profile", "kubernetes")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return 1, []string{fmt.Sprintf("%s: dractl: %v: %s", file, err, firstLine(stderr.String()))}
		}
		for _, line := range strings.Split(stdout.String(), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var r celResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				return 1, []string{fmt.Sprintf("%s: dractl printed %q: %v", file, line, err)}
			}
			other[r.Name] = r
		}
	}
	var lines []string
	for _, v := range vectors {
		a, ok := other[v.Name]
		if !ok {
			lines = append(lines, fmt.Sprintf("%s: %s: no result from %s", file, v.Name, otherName))
			continue
		}
		b := oracle[v.Name]
		if d := diffCel(a, b); d != "" {
			lines = append(lines, fmt.Sprintf("%s: %s: %s\n    expr: %s\n    %s: %s\n    oracle: %s",
				file, v.Name, d, v.Expr, otherName, describeCel(a), describeCel(b)))
		} else if o.verbose {
			fmt.Printf("ok %s: %s: %s\n", file, v.Name, describeCel(b))
		}
	}
	return len(vectors), lines
}

func describeCel(r celResult) string {
	if r.Error != nil {
		return "error: " + *r.Error
	}
	return "value: " + string(r.Value)
}

func diffCel(a, b celResult) string {
	switch {
	case a.Error != nil && b.Error != nil:
		return ""
	case a.Error != nil || b.Error != nil:
		return "error vs value"
	}
	var av, bv any
	if err := json.Unmarshal(a.Value, &av); err != nil {
		return "bad value: " + err.Error()
	}
	if err := json.Unmarshal(b.Value, &bv); err != nil {
		return "bad value: " + err.Error()
	}
	if !reflect.DeepEqual(normaliseTyped(av), normaliseTyped(bv)) {
		return "values differ"
	}
	return ""
}

// normaliseTyped makes typed values comparable: quantities in canonical
// form, doubles as text, map entries sorted.
func normaliseTyped(v any) any {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return v
	}
	for kind, x := range m {
		switch kind {
		case "quantity":
			if s, ok := x.(string); ok {
				if q, err := resource.ParseQuantity(s); err == nil {
					return map[string]any{kind: quantityKey(q)}
				}
			}
		case "double":
			if f, ok := x.(float64); ok {
				return map[string]any{kind: strconv.FormatFloat(f, 'g', -1, 64)}
			}
		case "list", "optional":
			if l, ok := x.([]any); ok {
				out := make([]any, len(l))
				for i, e := range l {
					out[i] = normaliseTyped(e)
				}
				return map[string]any{kind: out}
			}
			return map[string]any{kind: normaliseTyped(x)}
		case "map":
			l, _ := x.([]any)
			var entries []string
			for _, p := range l {
				pair, _ := p.([]any)
				if len(pair) == 2 {
					pair = []any{normaliseTyped(pair[0]), normaliseTyped(pair[1])}
				}
				j, _ := json.Marshal(pair)
				entries = append(entries, string(j))
			}
			sort.Strings(entries)
			return map[string]any{kind: entries}
		}
	}
	return v
}
