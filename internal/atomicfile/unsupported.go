package atomicfile

import (
	"errors"
	"syscall"
)

// isUnsupported reports whether err says the file system cannot sync a
// directory.
func isUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}
