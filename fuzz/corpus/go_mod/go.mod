module github.com/acme/shipit

go 1.22.1

toolchain go1.22.3

require (
	github.com/gin-gonic/gin v1.9.1
	github.com/google/uuid v1.6.0
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842
	gopkg.in/yaml.v3 v3.0.1 // indirect
	github.com/docker/docker v26.1.0+incompatible
)

require github.com/stretchr/testify v1.9.0

require (
	"github.com/quoted/module" v0.3.0
)

replace github.com/google/uuid v1.6.0 => github.com/acme/uuid v1.6.1-acme.1

replace github.com/acme/shared => ../shared

exclude github.com/pkg/errors v0.9.0

retract v0.1.0 // published by mistake
