// Command difftest generates random allocator scenarios (FORMAT.md §1), runs
// dractl and upstream's allocator (tools/oracle, k8s.io/dynamic-resource-allocation
// v0.37.2) on each and reports where they disagree. Each disagreement is
// shrunk to a small reproducer under tests/regressions/ whose expect: is
// upstream's outcome. See README.md.
//
//	difftest --seed S --count N [--features random|random-all|none|G1,G2...]
//	         [--dractl PATH] [--oracle PATH] [--keep DIR] [--out DIR] [--validate]
//	difftest --level validation --seed S --count N [--dractl PATH]  (validation_run.go)
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	yamlv3 "go.yaml.in/yaml/v3"
)

type options struct {
	seed      uint64
	count     int
	start     int
	features  string
	dractl    string
	oracle    string
	keep      string
	out       string
	validate  bool
	shrink    bool
	maxShrink int
	timeout   time.Duration
	retry     time.Duration
	verbose   bool
	dump      string
	skipKnown string
	level     string
	gangs     float64 // --level scheduler: share of clusters with PodGroups
	large     float64 // --level scheduler: share of clusters of 101-260 nodes
}

func main() {
	var o options
	flag.Uint64Var(&o.seed, "seed", 1, "random seed; scenario i of seed S is always the same")
	flag.IntVar(&o.count, "count", 100, "number of scenarios")
	flag.IntVar(&o.start, "start", 0, "index of the first scenario (to rerun one: --start I --count 1)")
	flag.StringVar(&o.features, "features", "random", "feature gates: random (core gates), random-all (also gates only upstream's experimental allocator has), none, or a comma-separated list")
	flag.StringVar(&o.dractl, "dractl", "build/difftest/src/cli/dractl", "dractl binary")
	flag.StringVar(&o.oracle, "oracle", "build/oracle-go/oracle", "oracle binary (tools/oracle; needs the `batch` command)")
	flag.StringVar(&o.keep, "keep", "", "directory to save every mismatching scenario as generated")
	flag.StringVar(&o.out, "out", "tests/regressions", "directory for shrunk reproducers (empty: none)")
	flag.BoolVar(&o.validate, "validate", false, "also run `dractl validate` on each scenario's objects; an invalid, not deliberately broken one is a mismatch")
	flag.BoolVar(&o.shrink, "shrink", true, "shrink mismatches and write reproducers")
	flag.IntVar(&o.maxShrink, "max-shrink", 3, "shrink at most this many mismatches per class")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Second, "per scenario, per side")
	flag.DurationVar(&o.retry, "retry-timeout", 10*time.Minute, "when upstream's search runs past --timeout, run it again alone with this limit (0: never)")
	flag.BoolVar(&o.verbose, "v", false, "print every scenario")
	flag.StringVar(&o.dump, "dump", "", "directory to save every generated scenario (generator debugging)")
	flag.StringVar(&o.skipKnown, "skip-known", "", "skip scenarios that can hit known mismatch classes (comma-separated: all-shares, fractional, lazy-cel) to look for others")
	flag.StringVar(&o.level, "level", "allocator", "allocator, validation (objects against a real kube-apiserver's dry run) or scheduler (clusters against kube-scheduler's plugins; README.md)")
	flag.Float64Var(&o.gangs, "gangs", schedGangFraction, "--level scheduler: share of the clusters with PodGroups (0 to 1; sched_gen.go)")
	flag.Float64Var(&o.large, "large", schedLargeFraction, "--level scheduler: share of the clusters of 101-260 nodes, where kube-scheduler samples nodes (0 to 1; sched_gen.go)")
	flag.Parse()
	if o.level == "validation" {
		os.Exit(runValidation(o))
	}
	if o.level == "scheduler" {
		os.Exit(runScheduler(o)) // sched_run.go
	}
	os.Exit(run(o))
}

func parseFeatures(s string) FeatureMode {
	switch s {
	case "random":
		return FeatureMode{Random: true}
	case "random-all":
		return FeatureMode{Random: true, All: true}
	case "none", "":
		return FeatureMode{}
	}
	return FeatureMode{Fixed: strings.Split(s, ",")}
}

// runner holds the two engines.
type runner struct {
	o      options
	tmp    string
	oracle *exec.Cmd
	oin    *bufio.Writer
	oout   *bufio.Scanner
	n      int
	// notCompared counts scenarios whose upstream search ran past
	// --retry-timeout too (see oracleDeadline).
	notCompared int
}

func newRunner(o options) (*runner, error) {
	tmp, err := os.MkdirTemp("", "difftest-")
	if err != nil {
		return nil, err
	}
	r := &runner{o: o, tmp: tmp}
	cmd := exec.Command(o.oracle, "batch", "--timeout", o.timeout.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the oracle: %w", err)
	}
	r.oracle = cmd
	r.oin = bufio.NewWriter(stdin)
	r.oout = bufio.NewScanner(stdout)
	r.oout.Buffer(make([]byte, 1<<20), 16<<20)
	return r, nil
}

func (r *runner) close() {
	if r.oracle != nil {
		r.oracle.Process.Kill()
		r.oracle.Wait()
	}
	os.RemoveAll(r.tmp)
}

// both runs dractl and the oracle on a scenario document.
func (r *runner) both(doc obj) (dractl, upstream map[string]any, err error) {
	r.n++
	path := filepath.Join(r.tmp, fmt.Sprintf("s%d.yaml", r.n%4))
	if _, ok := doc["expect"]; !ok {
		// dractl's reader wants an expect block; it does not change the outcome.
		doc = shallowCopy(doc)
		doc["expect"] = obj{"unsatisfiable": true}
	}
	if err := os.WriteFile(path, scenarioYAML(doc, ""), 0o644); err != nil {
		return nil, nil, err
	}
	// The oracle works while dractl runs.
	fmt.Fprintln(r.oin, path)
	if err := r.oin.Flush(); err != nil {
		return nil, nil, fmt.Errorf("oracle: %w", err)
	}
	dractl, derr := r.runDractl(path)
	if !r.oout.Scan() {
		return nil, nil, fmt.Errorf("oracle exited: %v", r.oout.Err())
	}
	var line struct {
		Path    string         `json:"path"`
		Outcome map[string]any `json:"outcome"`
		Failure string         `json:"failure"`
	}
	if err := json.Unmarshal(r.oout.Bytes(), &line); err != nil {
		return nil, nil, fmt.Errorf("oracle output: %w", err)
	}
	if line.Failure != "" {
		// The oracle could not read the scenario: compare as an error.
		line.Outcome = map[string]any{"error": "oracle: " + line.Failure}
	}
	if derr != nil {
		dractl = map[string]any{"crash": derr.Error()}
	}
	if oracleDeadline(line.Outcome) && r.o.retry > 0 {
		// Upstream's search ran past the oracle's --timeout. Its outcome then
		// depends on the wall clock (the allocator stops when the context is
		// done, as kube-scheduler's Filter timeout makes it), so it is not
		// comparable: run it again alone with the long limit.
		if u, err := r.retryOracle(path); err == nil && !oracleDeadline(u) {
			return dractl, u, nil
		}
		r.notCompared++
		return dractl, map[string]any{"notCompared": fmt.Sprintf("upstream's search ran past %v", r.o.retry)}, nil
	}
	return dractl, line.Outcome, nil
}

// oracleDeadline reports whether an upstream outcome is the error the
// allocator returns when the oracle's time limit ends its search
// ("filter operation aborted: context deadline exceeded").
func oracleDeadline(u map[string]any) bool {
	e, ok := u["error"].(string)
	return ok && strings.Contains(e, "context deadline exceeded")
}

// retryOracle runs the oracle on one scenario in a process of its own with
// the --retry-timeout limit.
func (r *runner) retryOracle(path string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.o.retry+10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.o.oracle, "batch", "--timeout", r.o.retry.String())
	cmd.Stdin = strings.NewReader(path + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var line struct {
		Outcome map[string]any `json:"outcome"`
		Failure string         `json:"failure"`
	}
	if err := json.Unmarshal(out, &line); err != nil {
		return nil, err
	}
	if line.Failure != "" {
		return map[string]any{"error": "oracle: " + line.Failure}, nil
	}
	return line.Outcome, nil
}

func (r *runner) runDractl(path string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.o.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.o.dractl, "allocate", "--scenario", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dractl: %v: %s", err, firstLine(stderr.String()))
	}
	var m map[string]any
	if err := yamlv3.Unmarshal(stdout.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("dractl output: %v", err)
	}
	return m, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// compare runs both engines and diffs, treating a dractl crash as its own class.
func (r *runner) compare(doc obj) (*Diff, map[string]any, map[string]any, error) {
	d, u, err := r.both(doc)
	if err != nil {
		return nil, nil, nil, err
	}
	return classify(d, u), d, u, nil
}

func classify(d, u map[string]any) *Diff {
	if _, ok := u["notCompared"]; ok {
		return nil
	}
	if c, ok := d["crash"]; ok {
		return &Diff{Class: "dractl failed", Detail: fmt.Sprint(c)}
	}
	return diffOutcomes(d, u)
}

type mismatch struct {
	index    int
	doc      obj
	diff     Diff
	dractl   map[string]any
	upstream map[string]any
	features []any
}

func run(o options) int {
	mode := parseFeatures(o.features)
	r, err := newRunner(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "difftest: %v\n", err)
		return 2
	}
	defer r.close()
	if _, err := os.Stat(o.dractl); err != nil {
		fmt.Fprintf(os.Stderr, "difftest: %v\n", err)
		return 2
	}
	var mismatches []mismatch
	skipped := 0
	kinds := map[string]int{}
	started := time.Now()
	for i := o.start; i < o.start+o.count; i++ {
		s := Generate(o.seed, i, mode)
		if o.validate {
			if msg := validateScenario(o.dractl, r.tmp, s); msg != "" {
				m := mismatch{index: i, doc: s.Doc, diff: Diff{Class: "generator: invalid scenario", Detail: msg}}
				mismatches = append(mismatches, m)
				fmt.Printf("seed %d scenario %d: generator: invalid scenario: %s\n", o.seed, i, msg)
				continue
			}
		}
		if reason := knownClass(s, o.skipKnown); reason != "" {
			skipped++
			continue
		}
		if o.dump != "" {
			os.MkdirAll(o.dump, 0o755)
			os.WriteFile(filepath.Join(o.dump, fmt.Sprintf("s-%d.yaml", i)), scenarioYAML(s.Doc, ""), 0o644)
		}
		diff, d, u, err := r.compare(s.Doc)
		if err != nil {
			fmt.Fprintf(os.Stderr, "difftest: scenario %d: %v\n", i, err)
			return 2
		}
		kinds[outcomeKind(u)]++
		if o.verbose {
			fmt.Printf("scenario %d: upstream %s\n", i, summarise(u))
		}
		if diff == nil {
			continue
		}
		feats, _ := s.Doc["features"].([]any)
		if fs, ok := s.Doc["features"].([]string); ok {
			feats = strs(fs)
		}
		m := mismatch{index: i, doc: s.Doc, diff: *diff, dractl: d, upstream: u, features: feats}
		mismatches = append(mismatches, m)
		fmt.Printf("seed %d scenario %d: %s [%s]\n    dractl:   %s\n    upstream: %s\n", o.seed, i, diff.Detail, diff.Class, summariseAny(d), summarise(u))
		if o.keep != "" {
			os.MkdirAll(o.keep, 0o755)
			name := fmt.Sprintf("difftest-%d-%d.yaml", o.seed, i)
			os.WriteFile(filepath.Join(o.keep, name), scenarioYAML(s.Doc, header(o.seed, i, m)), 0o644)
		}
	}
	elapsed := time.Since(started)

	// Shrink: a few per class.
	if o.shrink && o.out != "" && len(mismatches) > 0 {
		perClass := map[string]int{}
		for _, m := range mismatches {
			if strings.HasPrefix(m.diff.Class, "generator") {
				continue
			}
			if perClass[m.diff.Class] >= o.maxShrink {
				continue
			}
			perClass[m.diff.Class]++
			small, d, u := shrink(r, m)
			m2 := m
			m2.doc, m2.dractl, m2.upstream = small, d, u
			if dd := classify(d, u); dd != nil {
				m2.diff = *dd
			}
			path := writeReproducer(o, m2)
			fmt.Printf("reproducer %s (%d objects) for scenario %d [%s]\n", path, len(small["objects"].([]any)), m.index, m.diff.Class)
		}
	}
	var ks []string
	for k, v := range kinds {
		ks = append(ks, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(ks)
	fmt.Fprintf(os.Stderr, "upstream outcomes: %s; %.1f ms/scenario\n", strings.Join(ks, ", "), float64(elapsed.Milliseconds())/float64(max(1, o.count)))
	if skipped > 0 {
		fmt.Fprintf(os.Stderr, "%d scenarios skipped (--skip-known)\n", skipped)
	}
	if r.notCompared > 0 {
		fmt.Printf("%d scenarios not compared: upstream's search ran past --retry-timeout %v\n", r.notCompared, o.retry)
	}
	fmt.Printf("%d scenarios, %d mismatches\n", o.count-skipped, len(mismatches))
	if len(mismatches) > 0 {
		return 1
	}
	return 0
}

func summariseAny(d map[string]any) string {
	if c, ok := d["crash"]; ok {
		return fmt.Sprint(c)
	}
	return summarise(d)
}

func header(seed uint64, index int, m mismatch) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Found by tools/difftest --seed %d --start %d --count 1 (features: %v).\n", seed, index, m.features)
	fmt.Fprintf(&b, "# Mismatch [%s]: %s\n", m.diff.Class, m.diff.Detail)
	fmt.Fprintf(&b, "#   dractl:   %s\n", oneLine(summariseAny(m.dractl)))
	fmt.Fprintf(&b, "#   upstream: %s\n", oneLine(summarise(m.upstream)))
	b.WriteString("# expect: is upstream's (k8s.io/dynamic-resource-allocation v0.37.2) outcome.\n")
	return b.String()
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

func writeReproducer(o options, m mismatch) string {
	os.MkdirAll(o.out, 0o755)
	slug := strings.Trim(slugRE.ReplaceAllString(strings.ToLower(m.diff.Class), "-"), "-")
	name := fmt.Sprintf("difftest-%s-%d-%d", slug, o.seed, m.index)
	doc := shallowCopy(m.doc)
	doc["name"] = name
	doc["expect"] = expectFrom(m.upstream)
	path := filepath.Join(o.out, name+".yaml")
	os.WriteFile(path, scenarioYAML(doc, header(o.seed, m.index, m)), 0o644)
	return path
}

// expectFrom turns the oracle's outcome into an expect: block: share IDs
// become "*", nulls are dropped, config gets an explicit empty list.
func expectFrom(u map[string]any) any {
	switch outcomeKind(u) {
	case "error":
		return obj{"error": "upstream reports an error", "upstreamError": u["error"]}
	case "unsatisfiable":
		return obj{"unsatisfiable": true}
	}
	var allocs []any
	list, _ := u["allocations"].([]any)
	for _, a := range list {
		m, _ := a.(map[string]any)
		d, _ := m["devices"].(map[string]any)
		var results []any
		rl, _ := d["results"].([]any)
		for _, r := range rl {
			rm := shallowCopy(r.(map[string]any))
			if s, ok := rm["shareID"].(string); ok && s != "" {
				rm["shareID"] = "*"
			}
			results = append(results, rm)
		}
		if results == nil {
			results = []any{}
		}
		cfg := d["config"]
		if cfg == nil {
			cfg = []any{}
		}
		e := obj{"claim": m["claim"], "devices": obj{"results": results, "config": cfg}}
		if ns := m["nodeSelector"]; ns != nil {
			e["nodeSelector"] = ns
		}
		allocs = append(allocs, e)
	}
	if allocs == nil {
		allocs = []any{}
	}
	return obj{"allocations": allocs}
}

// scenarioYAML prints a scenario with its top-level keys in FORMAT.md order.
func scenarioYAML(doc obj, comment string) []byte {
	order := []string{"name", "source", "features", "node", "objects", "allocatedDevices", "allocatedShares", "allocate", "expect"}
	root := &yamlv3.Node{Kind: yamlv3.MappingNode}
	add := func(k string, v any) {
		var vn yamlv3.Node
		if err := vn.Encode(v); err != nil {
			panic(err)
		}
		root.Content = append(root.Content, &yamlv3.Node{Kind: yamlv3.ScalarNode, Value: k}, &vn)
	}
	seen := map[string]bool{}
	for _, k := range order {
		if v, ok := doc[k]; ok {
			add(k, v)
			seen[k] = true
		}
	}
	var rest []string
	for k := range doc {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		add(k, doc[k])
	}
	var buf bytes.Buffer
	buf.WriteString(comment)
	enc := yamlv3.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		panic(err)
	}
	enc.Close()
	return buf.Bytes()
}

// knownClass says whether a scenario can hit one of the mismatch classes
// named in skip (see README.md, "Known mismatch classes").
func knownClass(s Scenario, skip string) string {
	if skip == "" {
		return ""
	}
	text := string(scenarioYAML(s.Doc, ""))
	for _, k := range strings.Split(skip, ",") {
		switch k {
		case "all-shares":
			if strings.Contains(text, "allocationMode: All") && strings.Contains(text, "shareID:") {
				return k
			}
		case "fractional":
			if strings.Contains(text, "DRAFractionalCapacityRange") {
				return k
			}
		case "lazy-cel":
			if s.Broken != "" && strings.Contains(s.Broken, "CEL") {
				return k
			}
		}
	}
	return ""
}
