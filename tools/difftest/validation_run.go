package main

// --level validation, the runner: each generated object goes to
// `dractl validate --strict -o json` and, as a server-side dry run (POST with
// dryRun=All&fieldValidation=Strict, what `kubectl apply --dry-run=server`
// sends for a new object), to a real kube-apiserver v1.37.2 started by
// tests/live/cluster.sh with the object's gate profile. See README.md
// "Validation level".

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	clusterScript = flag.String("cluster-script", "tests/live/cluster.sh", "validation level: the script that starts and stops the API server (tests/live/cluster.sh)")
	repoRoot      = flag.String("root", ".", "validation level: the repository root (fixtures, examples, conformance scenarios)")
	onlyKinds     = flag.String("kinds", "", "validation level: only these kinds (comma-separated; object i of seed S is then another object)")
)

// A verdict: accepted, or rejected with these field paths (errors only).
type verdict struct {
	reject bool
	decode bool // the server could not decode the object (HTTP 400): no causes
	fields []string
	msg    string
}

// knownFailure is a mismatch class that is counted and printed, not fixed
// yet: an object is in it when one of its mutations matches mutation and its
// mismatch class (with the kind in front) matches class.
type knownFailure struct {
	name            string
	mutation, class *regexp.Regexp
	reason          string
}

// knownFailures is empty: "missing quantity", "null value" (dractl's
// decoder now reads both as Go's zero value, with a warning, and validates
// on) and "schedulingGroup unknown field" (--strict looks inside it) were
// fixed (README.md).
var knownFailures = []knownFailure{}

func runValidation(o options) int {
	bases, err := loadBases(*repoRoot)
	if err != nil || len(bases) == 0 {
		fmt.Fprintf(os.Stderr, "difftest: reading the base objects under %s: %v (run from the repository root or pass --root)\n", *repoRoot, err)
		return 2
	}
	if _, err := os.Stat(o.dractl); err != nil {
		fmt.Fprintf(os.Stderr, "difftest: %v\n", err)
		return 2
	}
	var only map[string]bool
	if *onlyKinds != "" {
		only = map[string]bool{}
		for _, k := range strings.Split(*onlyKinds, ",") {
			if !vKinds[k] {
				fmt.Fprintf(os.Stderr, "difftest: --kinds: %q is not a checked kind\n", k)
				return 2
			}
			only[k] = true
		}
	}
	byProfile := map[string][]vcase{}
	perKind := map[string]int{}
	for i := o.start; i < o.start+o.count; i++ {
		c := generateValidation(o.seed, i, bases, only)
		byProfile[c.profile.name] = append(byProfile[c.profile.name], c)
		perKind[fmt.Sprint(c.obj["kind"])]++
	}
	var kinds []string
	for _, k := range sortedKeys(toAny(perKind)) {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, perKind[k]))
	}
	fmt.Fprintf(os.Stderr, "difftest: objects per kind: %s\n", strings.Join(kinds, ", "))
	tmp, err := os.MkdirTemp("", "difftest-validation-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "difftest: %v\n", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	liveServers = watchInterrupts(tmp)
	// A copy of dractl, so that a rebuild during the run changes nothing.
	if b, err := os.ReadFile(o.dractl); err != nil || os.WriteFile(filepath.Join(tmp, "dractl"), b, 0o755) != nil {
		fmt.Fprintf(os.Stderr, "difftest: copying %s: %v\n", o.dractl, err)
		return 2
	}
	o.dractl = filepath.Join(tmp, "dractl")

	started := time.Now()
	type result struct {
		c    vcase
		line string
		cls  string
	}
	var results []result
	aliased := 0
	var stopping sync.WaitGroup
	defer stopping.Wait()
	for _, p := range gateProfiles {
		cases := byProfile[p.name]
		if len(cases) == 0 {
			continue
		}
		srv, err := startServer(tmp, p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "difftest: starting kube-apiserver (profile %s): %v\n", p.name, err)
			return 2
		}
		for _, c := range cases {
			d, derr := dractlVerdict(o.dractl, tmp, c)
			s, serr := srv.verdict(c.obj)
			if c.obj["kind"] == "Node" && nodeTaintsAlias(&s) {
				aliased++
			}
			if derr != nil || serr != nil {
				stopping.Wait()
				srv.stop()
				fmt.Fprintf(os.Stderr, "difftest: object %d: dractl: %v, server: %v\n", c.index, derr, serr)
				return 2
			}
			if o.verbose {
				fmt.Printf("object %d [%s] %s from %s; %s\n    dractl: %s\n        %s\n    server: %s\n        %s\n", c.index, p.name, c.obj["kind"], c.base, strings.Join(c.muts, "; "), d, d.msg, s, s.msg)
			}
			if cls := compareVerdicts(d, s); cls != "" {
				line := fmt.Sprintf("seed %d object %d [%s, %s from %s; %s]: %s\n    dractl: %s\n    server: %s",
					o.seed, c.index, p.name, c.obj["kind"], c.base, strings.Join(c.muts, "; "), cls, d, s)
				results = append(results, result{c, line, fmt.Sprintf("%s: %s", c.obj["kind"], cls)})
				if o.keep != "" {
					os.MkdirAll(o.keep, 0o755)
					b, _ := json.MarshalIndent(c.obj, "", "  ")
					os.WriteFile(filepath.Join(o.keep, fmt.Sprintf("validation-%d-%d-%s.json", o.seed, c.index, p.name)), b, 0o644)
				}
			}
		}
		// cluster.sh down takes seconds (kube-apiserver's graceful stop):
		// let it overlap with the next profile's objects.
		stopping.Add(1)
		go func() { srv.stop(); stopping.Done() }()
	}
	stopping.Wait()
	sort.Slice(results, func(i, j int) bool { return results[i].c.index < results[j].c.index })
	mismatches := 0
	known := map[string]int{}
	for _, r := range results {
		if k := knownFailureOf(r.c, r.cls); k != "" {
			known[k]++
			continue
		}
		mismatches++
		fmt.Println(r.line)
	}
	for _, k := range knownFailures {
		if n := known[k.name]; n > 0 {
			fmt.Printf("known failure %q: %d objects: %s\n", k.name, n, k.reason)
		}
	}
	if aliased > 0 {
		fmt.Printf("%d Node objects: the server's metadata.taints read as spec.taints (README.md)\n", aliased)
	}
	nknown := 0
	for _, n := range known {
		nknown += n
	}
	fmt.Fprintf(os.Stderr, "difftest: %.1f ms per object\n", float64(time.Since(started).Milliseconds())/float64(max(o.count, 1)))
	fmt.Printf("%d objects, %d mismatches, %d known failures\n", o.count, mismatches, nknown)
	if mismatches > 0 {
		return 1
	}
	return 0
}

func knownFailureOf(c vcase, cls string) string {
	for _, k := range knownFailures {
		if !k.class.MatchString(cls) {
			continue
		}
		for _, m := range c.muts {
			if k.mutation.MatchString(m) {
				return k.name
			}
		}
	}
	return ""
}

func (v verdict) String() string {
	if !v.reject {
		return "accepts"
	}
	if v.decode {
		return "rejects (decode): " + clip(firstLine(v.msg), 300)
	}
	return "rejects " + clip(strings.Join(v.fields, ", "), 300)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes more)", len(s)-n)
}

var (
	indexRe    = regexp.MustCompile(`\[[^\]]*\]`)
	numIndexRe = regexp.MustCompile(`\[[0-9]+\]`)
	mapKeyRe   = regexp.MustCompile(`\[([^\]]*)\]`)
)

// decodeMatch: the decoder's path (which, for a type error, also leaves out
// map keys) names the place of dractl's path d or a parent of it: its
// elements are a subsequence of d's, the first and the last matching a prefix
// of d's.
func decodeMatch(d, server string) bool {
	de, se := strings.Split(d, "."), strings.Split(server, ".")
	j := 0
	for i := 0; i < len(de) && j < len(se); i++ {
		if de[i] == se[j] {
			j++
		} else if j == 0 {
			return false
		}
	}
	return j == len(se)
}

// decodePath writes a field path as the API server's strict decoder does:
// no list indices, map keys as path elements.
func decodePath(f string) string {
	return mapKeyRe.ReplaceAllString(numIndexRe.ReplaceAllString(f, ""), ".$1")
}

// compareVerdicts returns the mismatch class, "" when they agree.
// Accept/reject must agree; on a 422 the sets of field paths must be equal;
// on a 400 (the object does not decode: wrong type, unknown field) the
// server names at most one path, without list indices, and dractl must
// report an error at that path (indices dropped) or below it.
func compareVerdicts(d, s verdict) string {
	switch {
	case d.reject && !s.reject:
		return "dractl rejects, server accepts: " + strings.Join(generalise(d.fields), ", ")
	case !d.reject && s.reject:
		if s.decode {
			return "dractl accepts, server cannot decode"
		}
		return "dractl accepts, server rejects: " + strings.Join(generalise(s.fields), ", ")
	case !d.reject:
		return ""
	case s.decode:
		if len(s.fields) == 0 {
			return ""
		}
		for _, f := range d.fields {
			for _, sf := range s.fields {
				if decodeMatch(decodePath(f), sf) {
					return ""
				}
			}
		}
		return "decode error at " + strings.Join(s.fields, ", ") + ", dractl: " + strings.Join(generalise(d.fields), ", ")
	}
	only := func(a, b []string) []string {
		in := map[string]bool{}
		for _, x := range b {
			in[x] = true
		}
		var out []string
		for _, x := range a {
			if !in[x] {
				out = append(out, x)
			}
		}
		return out
	}
	od, osf := only(d.fields, s.fields), only(s.fields, d.fields)
	if len(od) == 0 && len(osf) == 0 {
		return ""
	}
	return fmt.Sprintf("fields differ: only dractl [%s], only server [%s]", strings.Join(generalise(od), ", "), strings.Join(generalise(osf), ", "))
}

// generalise drops list indices and map keys, for mismatch classes.
func generalise(fields []string) []string {
	set := map[string]bool{}
	for _, f := range fields {
		set[indexRe.ReplaceAllString(f, "[*]")] = true
	}
	return sortedSet(set)
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// dractlVerdict runs `dractl validate --strict -o json` on the object.
func dractlVerdict(dractl, tmp string, c vcase) (verdict, error) {
	b, err := json.Marshal(c.obj)
	if err != nil {
		return verdict{}, err
	}
	path := filepath.Join(tmp, "object.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return verdict{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, dractl, "validate", "--strict", "-o", "json", "-f", path,
		"--kubernetes-version", "1.37", "--feature-gates", c.profile.gates)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			return verdict{}, err // could not run it at all
		}
		if ee.ExitCode() != 1 {
			return verdict{reject: true, fields: []string{"<dractl failed: " + firstLine(err.Error()+": "+stderr.String()) + ">"}}, nil
		}
	}
	var out struct {
		Errors   int `json:"errors"`
		Problems []struct {
			Severity string `json:"severity"`
			Field    string `json:"field"`
			Message  string `json:"message"`
		} `json:"problems"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return verdict{reject: true, fields: []string{"<dractl output: " + firstLine(stdout.String()+stderr.String()) + ">"}}, nil
	}
	set := map[string]bool{}
	var msgs []string
	for _, p := range out.Problems {
		if p.Severity == "error" {
			set[p.Field] = true
			msgs = append(msgs, p.Field+": "+p.Message)
		}
	}
	return verdict{reject: out.Errors > 0 || len(set) > 0, fields: sortedSet(set), msg: strings.Join(msgs, "; ")}, nil
}

// server is one kube-apiserver of tests/live/cluster.sh.
type server struct {
	dir    string
	url    string
	client *http.Client
}

func startServer(tmp string, p gateProfile) (*server, error) {
	dir := filepath.Join(tmp, "cluster-"+p.name)
	cmd := exec.Command(*clusterScript, "up", dir)
	cmd.Env = append(os.Environ(), "DRA_APISERVER_FEATURE_GATES="+p.gates+p.serverGates, "DRA_APISERVER_RUNTIME_CONFIG=scheduling.k8s.io/v1beta1=true")
	cmd.Stderr = os.Stderr
	s := &server{dir: dir}
	liveServers.add(s)
	if err := cmd.Run(); err != nil {
		s.stop()
		return nil, err
	}
	port, err := os.ReadFile(filepath.Join(dir, "port"))
	if err != nil {
		s.stop()
		return nil, err
	}
	s.url = "https://127.0.0.1:" + strings.TrimSpace(string(port))
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		s.stop()
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "admin.crt"), filepath.Join(dir, "admin.key"))
	if err != nil {
		s.stop()
		return nil, err
	}
	s.client = &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}}
	// Admin access needs this label on the claim's namespace. The API server
	// reads the live Namespace; dractl validate checks objects alone (audit
	// checks the label), so the objects' namespace has it.
	req, _ := http.NewRequest("PATCH", s.url+"/api/v1/namespaces/default",
		strings.NewReader(`{"metadata":{"labels":{"resource.kubernetes.io/admin-access":"true"}}}`))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := s.client.Do(req)
	if err != nil {
		s.stop()
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		s.stop()
		return nil, fmt.Errorf("labelling namespace default: HTTP %d", resp.StatusCode)
	}
	return s, nil
}

func (s *server) down() {
	exec.Command(*clusterScript, "down", s.dir).Run()
}

func (s *server) stop() {
	s.down()
	liveServers.remove(s)
}

// liveServers are the clusters started and not yet stopped; an interrupt
// stops them all. Set up by runValidation only.
var liveServers *serverSet

func watchInterrupts(tmp string) *serverSet {
	set := &serverSet{m: map[*server]bool{}}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		set.mu.Lock()
		for s := range set.m {
			s.down()
		}
		os.RemoveAll(tmp)
		os.Exit(2)
	}()
	return set
}

type serverSet struct {
	mu sync.Mutex
	m  map[*server]bool
}

func (set *serverSet) add(s *server)    { set.mu.Lock(); set.m[s] = true; set.mu.Unlock() }
func (set *serverSet) remove(s *server) { set.mu.Lock(); delete(set.m, s); set.mu.Unlock() }

var resourcePaths = map[string]string{
	"DeviceClass":           "/apis/resource.k8s.io/v1/deviceclasses",
	"ResourceSlice":         "/apis/resource.k8s.io/v1/resourceslices",
	"DeviceTaintRule":       "/apis/resource.k8s.io/v1/devicetaintrules",
	"ResourceClaim":         "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
	"ResourceClaimTemplate": "/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates",
	"Node":                  "/api/v1/nodes",
	"Pod":                   "/api/v1/namespaces/default/pods",
	"PodGroup":              "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups",
	"Workload":              "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads",
}

var (
	unknownFieldRe = regexp.MustCompile(`unknown field "([^"]*)"`)
	goFieldRe      = regexp.MustCompile(`Go struct field [A-Za-z0-9_]+\.([^ ]+) of type`)
	duplicateRe    = regexp.MustCompile(`duplicate field "([^"]*)"`)
	goTypeSegRe    = regexp.MustCompile(`\.[A-Z][A-Za-z0-9]*`)
)

// verdict makes the server-side dry run of a create.
func (s *server) verdict(o obj) (verdict, error) {
	path, ok := resourcePaths[fmt.Sprint(o["kind"])]
	if !ok {
		return verdict{}, fmt.Errorf("no resource for kind %v", o["kind"])
	}
	b, err := json.Marshal(o)
	if err != nil {
		return verdict{}, err
	}
	req, _ := http.NewRequest("POST", s.url+path+"?dryRun=All&fieldValidation=Strict", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return verdict{}, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == 200 || resp.StatusCode == 201 {
		return verdict{}, nil
	}
	var st struct {
		Message string `json:"message"`
		Details struct {
			Causes []struct {
				Field string `json:"field"`
			} `json:"causes"`
		} `json:"details"`
	}
	json.Unmarshal(body, &st)
	switch resp.StatusCode {
	case 422:
		set := map[string]bool{}
		for _, c := range st.Details.Causes {
			set[c.Field] = true
		}
		return verdict{reject: true, fields: sortedSet(set), msg: st.Message}, nil
	case 400:
		set := map[string]bool{}
		for _, re := range []*regexp.Regexp{unknownFieldRe, goFieldRe, duplicateRe} {
			for _, m := range re.FindAllStringSubmatch(st.Message, -1) {
				p := decodePath(m[1])
				if re == goFieldRe {
					// Go's decoder names embedded structs by their type
					// (spec.config.DeviceConfiguration.opaque): drop those.
					p = goTypeSegRe.ReplaceAllString(p, "")
				}
				set[p] = true
			}
		}
		return verdict{reject: true, decode: true, fields: sortedSet(set), msg: st.Message}, nil
	}
	return verdict{}, fmt.Errorf("HTTP %d: %s", resp.StatusCode, firstLine(string(body)))
}

func toAny(m map[string]int) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// nodeTaintsAlias: upstream's ValidateNode checks spec.taints under the path
// metadata.taints (its fldPath is "metadata"); dractl reports the field where
// it is. The server's paths are read as spec.taints; true if one was.
func nodeTaintsAlias(v *verdict) bool {
	changed := false
	for i, f := range v.fields {
		if f == "metadata.taints" || strings.HasPrefix(f, "metadata.taints[") {
			v.fields[i] = "spec" + strings.TrimPrefix(f, "metadata")
			changed = true
		}
	}
	if changed {
		sort.Strings(v.fields)
	}
	return changed
}
