// yamlprint prints JSON documents the way kubectl prints objects, for the
// differential test of dractl's YAML and JSON emitter (tests/print).
//
//	yamlprint [-o yaml|json] < documents.json
//
// Each JSON value on standard input is decoded as kubectl decodes an object
// (numbers as int64 where they fit, else float64: k8s.io/apimachinery's
// util/json), then printed as k8s.io/cli-runtime's printers print it:
// -o yaml through sigs.k8s.io/yaml (json.Marshal, then JSONToYAML on
// go.yaml.in/yaml/v2), documents separated by "---"; -o json with
// json.MarshalIndent and four spaces, one value after the other. A document
// kubectl cannot print is written as a comment line "# yamlprint: error: ...".
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/yaml"
)

// convert turns json.Number values into int64 or float64, as
// k8s.io/apimachinery/pkg/util/json does for unstructured objects.
func convert(v interface{}) (interface{}, error) {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, e := range t {
			c, err := convert(e)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
	case []interface{}:
		for i, e := range t {
			c, err := convert(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	return v, nil
}

func main() {
	output := flag.String("o", "yaml", "yaml or json")
	flag.Parse()
	if *output != "yaml" && *output != "json" {
		fmt.Fprintln(os.Stderr, "yamlprint: -o must be yaml or json")
		os.Exit(2)
	}
	dec := json.NewDecoder(bufio.NewReader(os.Stdin))
	dec.UseNumber()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for n := 0; ; n++ {
		var v interface{}
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			fmt.Fprintf(os.Stderr, "yamlprint: document %d: %v\n", n+1, err)
			os.Exit(1)
		}
		v, err := convert(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "yamlprint: document %d: %v\n", n+1, err)
			os.Exit(1)
		}
		var data []byte
		if *output == "yaml" {
			if n > 0 {
				out.WriteString("---\n")
			}
			data, err = yaml.Marshal(v)
		} else {
			data, err = json.MarshalIndent(v, "", "    ")
			data = append(data, '\n')
		}
		if err != nil {
			// kubectl fails the same way (go-yaml's reader refuses DEL,
			// C1 controls, U+FFFE and U+FFFF); said in place of the
			// document so that the next ones still print.
			data = []byte(fmt.Sprintf("# yamlprint: error: %v\n", err))
		}
		out.Write(data)
	}
}
