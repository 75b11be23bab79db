"""Generated bindings of proto/xrl/env/v1/env.proto (scripts/genproto)."""
