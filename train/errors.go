package train

import (
	"errors"
	"fmt"
)

// ErrInterrupted is returned, or wrapped, when the context of a run was
// cancelled before training ended.
var ErrInterrupted = errors.New("training interrupted")

// InterruptedError says where an interrupted PPO run stopped: its
// checkpoint in Dir holds Update updates after Episode episodes, and the
// run continues from there with Config.Resume.
type InterruptedError struct {
	Dir             string
	Episode, Update int
}

func (e *InterruptedError) Error() string { return ErrInterrupted.Error() }

// Unwrap returns ErrInterrupted.
func (e *InterruptedError) Unwrap() error { return ErrInterrupted }

// ConfigError is a setting of Config that cannot work: it conflicts with
// the run being resumed or with the models. Its message names the setting
// by the command-line flag that sets it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *ConfigError) Unwrap() error { return e.Err }

func configErrorf(format string, args ...any) error {
	return &ConfigError{fmt.Errorf(format, args...)}
}
