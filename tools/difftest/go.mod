module dractl/tools/difftest

go 1.26.0

require go.yaml.in/yaml/v3 v3.0.4

require dractl/tools/compare v0.0.0

// The comparison rules shared with tools/oracle (a module of this repository).
replace dractl/tools/compare => ../compare
