module dractl/tools/yamlprint

go 1.26.0

// The versions kubectl v1.37.2 prints with (k8s.io/kubectl v0.37.2's go.mod:
// sigs.k8s.io/yaml v1.6.0 on go.yaml.in/yaml/v2 v2.4.4).
require (
	go.yaml.in/yaml/v2 v2.4.4
	sigs.k8s.io/yaml v1.6.0
)
