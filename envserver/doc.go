// Package envserver provides a gRPC server of xrl's graph-rewriting
// environment (the EnvService of proto/xrl/env/v1/env.proto), so that
// reinforcement-learning code in any language — the Python client in
// python/xrl_gym in particular — can drive env.Env instances.
//
// One Server holds many instances, created, reset, stepped and closed by
// id; calls on different instances run concurrently. The server does not
// load models itself: a Factory, supplied by the caller (the `xrl env
// serve` command), turns a CreateParams into an *env.Env.
package envserver
