module dractl/tools/compare

go 1.26.0
